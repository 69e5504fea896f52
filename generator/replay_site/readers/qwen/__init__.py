"""The Qwen Code reader: `reader` holds READER (what is Qwen's, and its sessions); `records` builds the steps."""
