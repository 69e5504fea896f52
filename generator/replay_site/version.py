"""replay-site's version, which the pages and the cache key carry."""
__version__ = "0.1.0"
