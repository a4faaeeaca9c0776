"""``toolfuzz corpus merge|minimize|check|matrix|import``: the findings folder as a whole
(``toolfuzz.corpus.merge``, ``minimize``, ``check``), and real captured streams brought into it
(``toolfuzz.corpus.captures``).

Exit status: 0 done; 1 for ``check`` when the reference disagrees with a
fixture or a self-test fixture no longer fails, and for ``matrix --check``
when the page is stale; 2 for a usage or input error (for ``check``, also a
fixture that cannot be read, listed while the others are replayed; for
``import``, a recording that cannot be read, named while the others are
written).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import replace
from pathlib import Path

from toolfuzz.cli.arguments import add_target_options, add_wide_option, positive_seconds
from toolfuzz.corpus.agreement import ManifestError, agreement, imported_fixture, manifested
from toolfuzz.corpus.captures import CAPTURE_FILES, capture_file, capture_paths
from toolfuzz.corpus.recordings import RecordingError
from toolfuzz.corpus.check import check
from toolfuzz.corpus.entries import load_corpus
from toolfuzz.corpus.merge import merge
from toolfuzz.corpus.minimize import minimize
from toolfuzz.outputs.agreement_report import render_agreement, render_agreement_markdown
from toolfuzz.outputs.check_report import render_check
from toolfuzz.errors import UsageError
from toolfuzz.severity import SERVERS
from toolfuzz.corpus.fixtures import dumps, write_atomic
from toolfuzz.outputs.matrix import render_matrix
from toolfuzz.outputs.tables import terminal_width
from toolfuzz.targets.specs import resolve_all

DEFAULT = "findings"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("corpus", help="merge, shrink again, replay and tabulate folders of fixtures",
                       description="Work on a corpus of fixtures (default: findings/) as a whole. See docs/corpus.md.")
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True
    for verb in (_merge, _minimize, _check, _matrix, _agree, _import):
        verb(verbs)


def _merge(verbs: argparse._SubParsersAction) -> None:
    m = verbs.add_parser("merge", help="merge folders of fixtures into one, one file per root cause, the smallest kept",
                         description="Merge fixtures into --into, one per root cause: a fixture with all the features "
                         "of one there for the same target, kind and crash state (or of the target it builds on) is folded into it, "
                         "as is one of another kind that is a variant of one there; one with strictly "
                         "fewer features replaces those (their files are removed); one whose signature is new is "
                         "added (beside the fixtures of its target, where the corpus keeps them as "
                         "<target>--<kind>--<features>.json); one smaller than the file with its signature "
                         "replaces it; others are kept out. Every input is checked before anything is written; "
                         "files are copied byte for byte, but one that replaces another takes over its statement "
                         "and recorded ranges where it has none, and one folded into a fixture of its own target "
                         "leaves its statement there when that one has none. A fixture folded in or removed is kept "
                         "inside the one that stands for its root cause, as a variant (signature, name, statement, "
                         "case).")
    m.add_argument("dirs", nargs="+", metavar="DIR", help="folder (or file) of fixtures to merge in")
    m.add_argument("--into", default=DEFAULT, metavar="DIR", help=f"the corpus to merge into (default {DEFAULT}/)")
    m.set_defaults(run=run_merge)


def _minimize(verbs: argparse._SubParsersAction) -> None:
    s = verbs.add_parser("minimize", help="shrink each fixture again against its recorded target as installed now",
                         description="Shrink each fixture again: drop SSE events, lines and read boundaries while "
                         "the recorded target still diverges with the recorded kind. The file keeps its signature; "
                         "a raise recorded without a crash state (an older fixture) gets the one it raises with now.")
    s.add_argument("paths", nargs="*", default=[DEFAULT], metavar="PATH", help=f"fixtures (default {DEFAULT}/)")
    s.add_argument("--budget", type=positive_seconds, default=30.0, metavar="DURATION",
                   help="time to spend on each fixture, in seconds or like 2m (default 30 s)")
    s.add_argument("--timeout", type=positive_seconds, default=5.0, metavar="DURATION",
                   help="time limit per run of the target, in seconds or like 1m (default 5 s)")
    s.add_argument("--dry-run", action="store_true", help="say what would shrink, write nothing")
    s.set_defaults(run=run_minimize)


def _check(verbs: argparse._SubParsersAction) -> None:
    c = verbs.add_parser("check", help="replay every fixture: new, still failing, changed, fixed (in which version)",
                         description="Replay every fixture on the reference and on its recorded targets, and sort "
                         "the cells: new divergences, still failing, changed, fixed in the installed version, "
                         "skipped. Exit 1 only when the reference disagrees with a fixture or a self-test fixture "
                         "no longer fails: a library that fixes a bug is reported, not a failure; else exit 2 when "
                         "a fixture cannot be read (listed under 'unreadable'; the others are replayed).")
    c.add_argument("paths", nargs="*", default=[DEFAULT], metavar="PATH", help=f"fixtures (default {DEFAULT}/)")
    add_target_options(c, "the built-in targets each fixture records")
    c.add_argument("--json", action="store_true", help="print a machine-readable report")
    c.set_defaults(run=run_check)


def _matrix(verbs: argparse._SubParsersAction) -> None:
    x = verbs.add_parser("matrix", help="the Markdown table of libraries by divergence kind",
                         description="Print (or --write) the findings matrix: targets with their recorded versions "
                         "by divergence kind, fixtures and profiles in each cell, and each library's statements.")
    x.add_argument("paths", nargs="*", default=[DEFAULT], metavar="PATH", help=f"fixtures (default {DEFAULT}/)")
    x.add_argument("--write", metavar="FILE", help="write the page to FILE (e.g. findings/README.md)")
    x.add_argument("--check", action="store_true", help="with --write: exit 1 if FILE is not what would be written")
    add_wide_option(x, "the page as Markdown, as --write writes it, rather than fitted to the terminal")
    x.set_defaults(run=run_matrix)


def _agree(verbs: argparse._SubParsersAction) -> None:
    g = verbs.add_parser("agree", help="does the reference read each real capture as its source's tests do",
                         description="Replay every recording a captures.toml names (each source's folder holds one, "
                         "with its LICENSE: see findings/captures/README.md) on the reference, and compare its "
                         "reading of each response with what the source's own tests read from it. Prints a table "
                         "by source, each documented ambiguity, and each response read otherwise. Exit 0 when "
                         "every response is read as its manifest says, 1 when one is not, 2 for a manifest that "
                         "cannot be used (named, with its field).")
    g.add_argument("paths", nargs="*", default=[f"{DEFAULT}/captures"], metavar="PATH",
                   help=f"folders searched for captures.toml, or manifests (default {DEFAULT}/captures)")
    g.add_argument("--markdown", action="store_true", help="print the table by source as markdown only")
    g.set_defaults(run=run_agree)


def _import(verbs: argparse._SubParsersAction) -> None:
    i = verbs.add_parser("import", help="turn recorded streams (VCR cassettes, HAR, SSE bodies, chunk files) "
                         "into fixtures",
                         description="Read recorded provider streams and write one fixture per response into --out. "
                         "A file's form is told from its bytes: VCR cassettes (YAML or JSON, gzipped or not, "
                         "bodies plain, base64 or gzip), HAR files, SSE bodies (*.sse, inline-snapshot's *.bin) "
                         "kept as they came, and JSON lines of event data (the AI SDK's *.chunks.txt) framed back "
                         "as their server frames them. Only event-stream responses are read. The dialect is told "
                         "from the events; a recording of several responses (a cassette's interactions, an agent's "
                         "turns) gives one fixture each. The "
                         "expected outcome is the reference's reading; --source, --commit and --licence are kept "
                         "in each fixture's 'found'. A recording that cannot be read is named on stderr, one line "
                         "each, and the others are written. Then replay them: toolfuzz replay --target NAME DIR.")
    i.add_argument("paths", nargs="+", metavar="PATH",
                   help="recordings, or folders searched for " + ", ".join(CAPTURE_FILES))
    i.add_argument("--out", required=True, metavar="DIR", help="the folder to write the fixtures into")
    i.add_argument("--source", metavar="TEXT", help="where the recordings come from (a repository, a URL)")
    i.add_argument("--commit", metavar="TEXT", help="the commit or date they were taken at")
    i.add_argument("--licence", metavar="TEXT", help="the licence they are under")
    i.add_argument("--server", metavar="NAME", help="the server that sent them (one of toolfuzz profiles --servers), "
                   "which their findings are graded on; a recording a captures.toml names takes its own")
    i.set_defaults(run=run_import)


def run_merge(args: argparse.Namespace) -> int:
    into = Path(args.into)
    if into.exists() and not into.is_dir():
        raise UsageError(f"--into {into}: not a folder")
    counts = {"added": 0, "replaced": 0, "kept": 0, "folded": 0, "removed": 0}
    for m in merge(args.dirs, into):
        counts[m.action] += 1
        if m.action == "folded":
            print(f"{m.action:<8}  {m.source}  {m.detail}")
        elif m.action == "removed":
            print(f"{m.action:<8}  {m.path}  ({m.detail}: it has fewer features)")
        else:
            print(f"{m.action:<8}  {m.path}  from {m.source}" + (f"  ({m.detail})" if m.detail else ""))
    print(f"{counts['added']} added, {counts['replaced']} replaced, {counts['kept']} kept out, {counts['folded']} "
          f"folded into a root cause already there, {counts['removed']} removed for one with fewer features (in {into})")
    return 0


def run_minimize(args: argparse.Namespace) -> int:
    counts: dict[str, int] = {}

    def show(m) -> None:
        counts[m.action] = counts.get(m.action, 0) + 1
        what = {"shrunk": f"{m.before} -> {m.after} (calls, reads, bytes) in {m.tries} tries",
                "minimal": f"{m.before}: nothing smaller still diverges ({m.tries} tries)"
                + (f"; {m.detail}" if m.detail else "")}.get(m.action, m.detail)
        verb = "would shrink" if m.action == "shrunk" and args.dry_run else m.action
        print(f"{verb:<12}  {m.path}  {m.target or '-'} {m.kind}  {what}".rstrip(), flush=True)

    minimize(args.paths, args.timeout, args.budget, write=not args.dry_run, on_done=show)
    print(", ".join(f"{n} {a}" for a, n in sorted(counts.items())) or "no fixtures")
    return 0


def run_check(args: argparse.Namespace) -> int:
    given = resolve_all(args.target, args.level) if args.target else None
    result = check(args.paths, given, args.timeout)
    if args.json:
        json.dump(result.to_json(), sys.stdout, indent=2, ensure_ascii=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_check(result))
    return result.exit_code


def run_matrix(args: argparse.Namespace) -> int:
    if args.check and not args.write:
        raise UsageError("--check needs --write FILE: the page to compare with")
    command = shlex.join(["toolfuzz", "corpus", "matrix", *args.paths] + (["--write", args.write] if args.write else []))
    base = Path(args.write).parent if args.write else Path.cwd()
    if not args.write:
        # Fitted only on a terminal: a pipe (`> page.md`) gets the very page --write writes.
        sys.stdout.write(render_matrix(load_corpus(args.paths), base, command, terminal_width(sys.stdout, args.wide)))
        return 0
    page = render_matrix(load_corpus(args.paths), base, command)
    target = Path(args.write)
    if args.check:
        try:
            current = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            current = None
        if current != page:
            print(f"{target} is not up to date with the fixtures: run `{command}`", file=sys.stderr)
            return 1
        print(f"{target} is up to date")
        return 0
    try:
        write_atomic(target, page)
    except OSError as e:
        raise UsageError(f"{target}: cannot write: {e.strerror or e}") from None
    print(f"wrote {target}")
    return 0


def run_agree(args: argparse.Namespace) -> int:
    try:
        verdicts = list(agreement(args.paths))
    except ManifestError as e:
        raise UsageError(str(e)) from None
    sys.stdout.write(render_agreement_markdown(verdicts) if args.markdown else render_agreement(verdicts))
    return 0 if all(v.agrees for v in verdicts) else 1


def run_import(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: not a folder")
    paths = capture_paths(args.paths)
    if not paths:
        raise UsageError(f"no recording ({', '.join(CAPTURE_FILES)}) in {' '.join(args.paths)}")
    given = {k: v for k, v in (("repository", args.source), ("commit", args.commit),
                               ("licence", args.licence)) if v}
    if args.server and args.server not in SERVERS:
        raise UsageError(f"--server: {args.server!r} is not one of {', '.join(sorted(SERVERS))}")
    try:
        # A recording a captures.toml names is imported with its provenance, its server and its ambiguity.
        manifests = manifested(args.paths)
    except ManifestError as e:
        raise UsageError(str(e)) from None
    written = unreadable = read = 0
    names: dict[str, Path] = {}
    for path in paths:
        try:
            captured = capture_file(path)
        except RecordingError as e:
            print(f"unreadable  {e}", file=sys.stderr)
            unreadable += 1
            continue
        read += 1
        for e in captured.unread:
            print(f"unreadable  {e}", file=sys.stderr)
            unreadable += 1
        entry = manifests.get(path.resolve())
        for capture in captured.captures:
            fixture = imported_fixture(capture, entry, args.server or "", given)
            if names.setdefault(fixture.name, path) != path:
                # Two recordings of one name in two folders (test_stream.yaml beside test_stream.yaml): the
                # second is named with its folder, so neither overwrites the other.
                fixture = replace(fixture, name=f"capture--{path.parent.name}--{fixture.name.removeprefix('capture--')}")
            target = out / f"{fixture.name}.json"
            try:
                out.mkdir(parents=True, exist_ok=True)
                write_atomic(target, dumps(fixture))
            except OSError as e:
                raise UsageError(f"{target}: cannot write: {e.strerror or e}") from None
            calls = fixture.case.expected.calls
            error = fixture.case.expected.error
            print(f"wrote  {target}  ({captured.form}{', ' + capture.where if capture.where else ''}: "
                  f"{capture.dialect}, {len(calls)} call{'s' * (len(calls) != 1)}"
                  + (f", ends {error.code}" if error else "") + ")")
            written += 1
    print(f"{written} fixture{'s' * (written != 1)} from {read} recording{'s' * (read != 1)}, "
          f"{unreadable} unreadable (in {out})")
    return 2 if unreadable else 0
