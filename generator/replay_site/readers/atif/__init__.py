"""The ATIF reader: `reader` holds READER (files and their grouping); `trajectory` builds the sessions."""
