"""The shared request path: the Face protocol, the endpoint every face's POST route runs, the middlewares, the app's keys."""
