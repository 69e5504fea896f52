"""The gptme reader: `reader` holds READER; its sibling modules build the steps."""
