"""Python client and command-line interface for evald."""
