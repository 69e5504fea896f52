"""Hermes Agent (NousResearch/hermes-agent): the SessionDB in `state.db`."""
