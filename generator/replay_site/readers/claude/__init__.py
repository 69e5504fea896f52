"""The claude reader: `reader` holds READER; its sibling modules build the steps."""
