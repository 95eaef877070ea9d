"""The engine seam: one `Engine` per database owns every difference between SQLite and PostgreSQL.

Read from the source (ast): no module of the service other than the engines (`db.engine`, `db.engines`,
`db.sqlite`, `db.pg`) imports a database driver or an engine, compares anything with an engine's name or URL
scheme, or writes SQL only one engine speaks; and the service keeps no table of envelope codes of its own
(the wire's `CODES` is the one). Then the contract of `Engine`, on each engine the same (see conftest's
`db`): migrations and their version, transactions that commit or roll back whole, the SQL the modules write
once, names ordered as Python orders them, copies.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import rankterm.server
from rankterm.server.db import REPLAY, Conn, engines, schema
from rankterm.server.db.engine import Engine
from rankterm.server.store import MIGRATION_WORK, Store
from rankterm.server.wire import Fault
from rankterm.wire.errors import CODES, error_from_response
from tests.support.held import held_in_thread
from tests.support.old_schema import downgrade

SERVER = Path(rankterm.server.__file__).parent
ENGINE_MODULES = {"engine.py", "engines.py", "sqlite.py", "pg.py", "copying.py"}
DRIVERS = {"sqlite3", "psycopg", "psycopg_pool"}
IMPLEMENTATIONS = {"rankterm.server.db.sqlite", "rankterm.server.db.pg"}
ENGINE_WORDS = ("sqlite", "postgres")
ONE_ENGINE_SQL = ("PRAGMA", "sqlite_master", "pg_advisory", "strpos(", "instr(", "schema_version")
CODE = re.compile(r"^[RAMQ]\d{3}$")


def _modules() -> list[Path]:
    found = sorted(p for p in SERVER.glob("*.py")) + sorted(
        p for p in (SERVER / "db").glob("*.py") if p.name not in ENGINE_MODULES
    )
    assert len(found) > 10
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes (they may speak of either engine)."""
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            out.add(id(first.value))
    return out


def _names_an_engine(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.lower().startswith(ENGINE_WORDS)
        for n in ast.walk(node)
    )


def _seam_breaks(path: Path) -> list[str]:
    """What in `path` asks which database it is, or speaks one engine's SQL (empty: nothing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.module in ("rankterm.server", "rankterm.server.db"):
                names = [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if name.split(".")[0] in DRIVERS or name in IMPLEMENTATIONS:
                    out.append(f"{where} imports {name}")
        elif isinstance(node, ast.Compare) and _names_an_engine(node):
            out.append(f"{where} compares with an engine's name")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
            and _names_an_engine(node)
        ):
            out.append(f"{where} tells engines apart by a name")
        elif isinstance(node, ast.Attribute) and node.attr == "_pg":
            out.append(f"{where} reads .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            out += [f"{where} writes {w!r}" for w in ONE_ENGINE_SQL if w in node.value]
    return out


def test_no_module_but_the_engines_asks_which_database_it_is() -> None:
    breaks = [b for path in _modules() for b in _seam_breaks(path)]
    assert breaks == []


def test_the_seam_check_sees_what_it_looks_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""A docstring may say PRAGMA and sqlite."""\n'
        "import sqlite3\n"
        "from rankterm.server.db import pg\n"
        "def f(store, conn, path):\n"
        "    if store.engine == 'sqlite':\n"
        "        conn.execute('PRAGMA user_version')\n"
        "    return path.startswith(('postgresql://', 'postgres://')) or store._pg\n",
        encoding="utf-8",
    )
    assert sorted(b.split(" ", 1)[1] for b in _seam_breaks(sample)) == [
        "compares with an engine's name",
        "imports rankterm.server.db.pg",
        "imports sqlite3",
        "reads ._pg",
        "tells engines apart by a name",
        "writes 'PRAGMA'",
    ]


def test_the_service_reads_the_wires_one_table_of_error_codes() -> None:
    tables = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and isinstance(k.value, str) and CODE.match(k.value)
                for k in node.keys
            ):
                tables.append(f"{path.name}:{node.lineno}")
    assert tables == []
    for code, (status, error) in CODES.items():
        fault = Fault(code if len(code) == 4 else f"{code}099", "Why.")
        assert fault.status == status
        body = {"errors": [{"code": fault.code, "message": fault.message}]}
        assert type(error_from_response("x", fault.status, body)) is error


# ---------------------------------------------------------------------------------------------- the contract


@pytest.fixture
def opened(db: str) -> Engine:
    engine = engines.open_engine(db)
    engine.migrate(work=MIGRATION_WORK)
    yield engine
    engine.close()


def test_the_name_picks_the_engine_and_the_engine_its_name(db: str, engine: str, opened: Engine) -> None:
    assert engines.engine_type(db) is type(opened) and opened.name == engine


def test_migrations_reach_the_version_once_and_a_newer_one_is_refused(db: str, opened: Engine) -> None:
    said: list[str] = []
    assert opened.migrate(said.append, MIGRATION_WORK) == schema.SCHEMA_VERSION and said == []
    with opened.read() as conn:
        assert opened.schema_version(conn) == schema.SCHEMA_VERSION
    with opened.write() as conn:
        opened.set_schema_version(conn, schema.SCHEMA_VERSION + 1)
    again = engines.open_engine(db)
    try:
        with pytest.raises(schema.SchemaTooNew):
            again.migrate(work=MIGRATION_WORK)
    finally:
        again.close()


def test_a_migrations_work_is_handed_in_or_nothing_is_migrated(db: str) -> None:
    with Store(db) as store:
        store.create_group("Kept")
        downgrade(store, 3)  # before the migration that rates again
    engine = engines.open_engine(db)
    try:
        with pytest.raises(LookupError, match=REPLAY):
            engine.migrate()
        with engine.read() as conn:
            assert engine.schema_version(conn) == 3
        seen: list[tuple[int, list[str]]] = []

        def replay(conn: Conn) -> None:  # inside migration 4's transaction, after its script
            groups = [r[0] for r in conn.execute("SELECT name FROM groups")]
            conn.execute("SELECT history_version FROM subsets").fetchall()
            seen.append((engine.schema_version(conn), groups))

        assert engine.migrate(work={**MIGRATION_WORK, REPLAY: replay}) == schema.SCHEMA_VERSION
        assert seen == [(3, ["Kept"])]
    finally:
        engine.close()


def test_a_write_commits_whole_or_not_at_all(opened: Engine) -> None:
    with opened.write() as conn:
        first = conn.execute("INSERT INTO groups (name, created) VALUES (?, ?) RETURNING id", ("A", "t"))
        group = first.fetchone()[0]
    with pytest.raises(ZeroDivisionError), opened.write(lock_group=group) as conn:
        conn.execute("INSERT INTO groups (name, created) VALUES (?, ?)", ("B", "t"))
        conn.execute("UPDATE groups SET name = ? WHERE id = ?", ("changed", group))
        _ = 1 / 0
    with opened.read(snapshot=False) as conn:
        assert [tuple(r) for r in conn.execute("SELECT id, name FROM groups")] == [(group, "A")]


def test_a_migration_script_in_sqlites_types_runs_and_keeps_text_bytes_and_floats(opened: Engine) -> None:
    script = (
        "CREATE TABLE probe (id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB, x REAL) ;"
        " CREATE TABLE pairs (a INTEGER NOT NULL, b TEXT NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID"
    )
    with opened.write() as conn:
        for statement in opened.statements(script):
            conn.execute(statement)
        ids = [
            conn.execute(
                "INSERT INTO probe (name, data, x) VALUES (?, ?, ?) RETURNING id", (name, b"\x00\xff", 0.1)
            ).fetchone()[0]
            for name in ("a\x00b", "50% ?", "\uf8ff0")
        ]
        conn.executemany("INSERT INTO pairs (a, b) VALUES (?, ?)", [(1, "x\x00"), (2, "y")])
    with opened.read() as conn:
        rows = [(r[0], r[1], bytes(r[2]), r[3]) for r in conn.execute("SELECT * FROM probe ORDER BY id")]
        pairs = [tuple(r) for r in conn.execute("SELECT a, b FROM pairs ORDER BY a")]
    assert rows == [
        (i, n, b"\x00\xff", 0.1) for i, n in zip(ids, ("a\x00b", "50% ?", "\uf8ff0"), strict=True)
    ]
    assert len(set(ids)) == 3 and pairs == [(1, "x\x00"), (2, "y")]


NAMES = ["a", "a\x00", "a\x00b", "a\x01", "a\x01b", "ab", "a\uf8ff", "a\uf8ff0", "a\uf8ff1", "A", "é", "b"]


def test_the_dialect_orders_names_as_python_does(opened: Engine) -> None:
    with opened.write() as conn:
        for statement in opened.statements("CREATE TABLE names (v TEXT NOT NULL)"):
            conn.execute(statement)
        conn.executemany("INSERT INTO names (v) VALUES (?)", [(n,) for n in NAMES])
    with opened.read() as conn:
        order = conn.dialect.name_order
        ordered = [r[0] for r in conn.execute(f"SELECT v FROM names ORDER BY {order('v')}")]
        below = {
            name: conn.execute(
                f"SELECT count(*) FROM names WHERE {order('v')} < {order('?')}", (name,)
            ).fetchone()[0]
            for name in NAMES
        }
    assert ordered == sorted(NAMES)
    assert below == {name: sum(other < name for other in NAMES) for name in NAMES}


def test_a_transaction_in_use_keeps_the_caller_off_the_event_loop(opened: Engine) -> None:
    with held_in_thread(opened.read):
        assert not opened.free_now()


def test_a_copy_is_whole_and_independent_or_refused(opened: Engine, tmp_path: Path) -> None:
    """An in-memory copy (SQLite; PostgreSQL refuses it, naming pg_dump), and on both a backup file that
    reads back whole."""
    with opened.write() as conn:
        conn.execute("INSERT INTO groups (name, created) VALUES (?, ?)", ("Kept", "t"))
    try:
        copy: Engine | None = opened.copy()
    except TypeError as refused:
        assert "pg_dump" in str(refused)
        copy = None
    if copy is not None:
        try:
            with copy.write() as conn:
                conn.execute("INSERT INTO groups (name, created) VALUES (?, ?)", ("Copy only", "t"))
            with copy.read() as conn:
                assert [r[0] for r in conn.execute("SELECT name FROM groups ORDER BY id")] == [
                    "Kept",
                    "Copy only",
                ]
            with opened.read() as conn:
                assert [r[0] for r in conn.execute("SELECT name FROM groups")] == ["Kept"]
        finally:
            copy.close()
    opened.backup_to(tmp_path / "copy.db")
    again = engines.copy_of_file(tmp_path / "copy.db")
    try:
        with again.read() as conn:
            assert [r[0] for r in conn.execute("SELECT name FROM groups")] == ["Kept"]
    finally:
        again.close()
