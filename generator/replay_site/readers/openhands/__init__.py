"""OpenHands (the OpenHands CLI and agent server, both on the software-agent-sdk's persistence)."""
