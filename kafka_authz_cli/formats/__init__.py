"""Strict reading: bytes, text, JSON and CSV with file:line:col for everything that goes wrong.

The bottom layer every reader builds on (no domain types): each domain package reads its own file
formats through it.
"""
