# Build stage: compile the `worp` binary.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
# webauthn-rs (passkeys) links the system's OpenSSL.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libssl-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cargo build --release --locked -p worp \
 && strip target/release/worp

# Runtime stage: a small image that runs `worp serve`. GNU Backgammon (Debian's gnubg,
# in /usr/games) plays the gnubg-* bots and analyses finished backgammon games
# (docs/bots.md); without it those bots are not offered.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libssl3 gnubg \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --create-home --home-dir /var/lib/worp worp \
 && mkdir -p /data && chown worp /data
COPY --from=build /src/target/release/worp /usr/local/bin/worp
# Configured by environment variables only. Set DATABASE_URL=postgres://… for
# PostgreSQL; without it games are kept in the SQLite file below (mount /data).
# On PostgreSQL run the server as a login role of `worp_server` (the role the
# migrations create: it may append events but never change or delete them), e.g.
# DATABASE_URL=postgres://worp:…@db/worp, never as postgres or the tables' owner;
# migrate as the owner first (docs/operations.md).
ENV WORP_BIND=0.0.0.0 \
    PORT=8080 \
    RUST_LOG=info \
    WORP_SQLITE_PATH=/data/worp.sqlite
VOLUME ["/data"]
EXPOSE 8080
USER worp
ENTRYPOINT ["/usr/local/bin/worp"]
CMD ["serve"]
