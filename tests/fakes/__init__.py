"""Local stand-ins for external services (LLM judges), for tests."""
