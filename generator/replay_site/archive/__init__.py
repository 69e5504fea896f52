"""The archive: a private, compressed, content-addressed copy of every log a build reads,
kept outside any site ($XDG_DATA_HOME/replay-site/archive by default), from which a build
renders the sessions whose logs have left the disk. Nothing in readers/ knows of it:
it gives them restored copies to read (recover.py).
"""
