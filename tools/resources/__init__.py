"""The read-only memory:// resources and subscriptions to them."""
