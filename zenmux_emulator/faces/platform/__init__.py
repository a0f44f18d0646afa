"""The Platform API (`/api/v1/management/...`): the account's balance, subscription, Flow rate,
usage and cost, answered from the emulator's own state to a Management key."""
