"""The library's tests."""
