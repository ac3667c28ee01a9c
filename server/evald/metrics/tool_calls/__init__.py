"""What tool-call and trajectory metrics parse: JSON values and tool-call payloads."""
