# The ZenMux emulator in a container: `docker compose up` (compose.yaml), or
#   docker build -t zenmux-emulator . && docker run --rm -p 8000:8000 zenmux-emulator
# It serves the example scenarios; mount your own over /home/emulator/scenarios.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY scenarios ./scenarios
COPY zenmux_emulator ./zenmux_emulator
RUN pip install . && rm -rf /src \
    && useradd --create-home --uid 10001 emulator

USER emulator
WORKDIR /home/emulator
RUN zenmux-emulator init scenarios

# Every option reads ZENMUX_EMULATOR_<OPTION>. All interfaces inside the container: the port is
# published by `docker run -p` / compose. The control API stays loopback-only unless
# ZENMUX_EMULATOR_ADMIN_TOKEN is set (then every client must send X-Emulator-Admin-Token).
ENV ZENMUX_EMULATOR_HOST=0.0.0.0 \
    ZENMUX_EMULATOR_PORT=8000 \
    ZENMUX_EMULATOR_SCENARIOS=scenarios
EXPOSE 8000

# The health endpoint, asked from inside the container (loopback), by the emulator's own `wait`.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["zenmux-emulator", "wait", "--url", "http://127.0.0.1:8000", "--timeout", "3"]

CMD ["zenmux-emulator", "serve"]
