"""Amp (Sourcegraph's Amp CLI): one JSON file per thread, `threads/T-<uuid>.json`."""
