"""Read an OCR-D workspace: its ``mets.xml``, the files of one file group page by page, and who made them.

An OCR-D workspace is a folder holding ``mets.xml`` and one folder per
processing step. The METS lists each step's files in a ``mets:fileGrp``
(``USE`` is the group's name, ``OCR-D-GT-PAGE``, ``OCR-D-OCR-TESS-frk``)
and ties them to pages in the ``PHYSICAL`` structMap: ``mets:div
TYPE="page" ID="PHYS_0017"`` holds a ``mets:fptr FILEID`` for each file
of that page, whatever the group. Files pair by that page, not by name
(``PAGE_0017_PAGE.xml`` in the GT group is the page of
``OCR-D-OCR-TESS_0001.xml``), and the page ids are the items' ids.

* `read_workspace` parses the METS with ek's safe XML reader
  (`ek._files._xml.parse`: no entity, no DTD, nothing fetched).
* `group_names` expands the groups asked for (a name, or a glob such as
  ``OCR-D-OCR-*``); an unknown name is an error naming the closest group.
* `group_side` reads one group's file of every page as a `Side`, so
  ``join(gold, pred)`` pairs a workspace exactly as it pairs two folders.
  Only local files are read: a ``FLocat`` that is a URL, or a path
  (``file://`` included) that leaves the workspace, is refused with the
  href. A file whose ``MIMETYPE`` is not a text format ek reads (PAGE,
  ALTO, hOCR, plain text; generic XML is read by its content) is refused,
  as is a file missing on disk and a page the group has no file for: each
  such page is a failure of the side (``Side.errors``), so ``ek evaluate``
  refuses it, or leaves it out and lists it under ``--keep-going``.
* `processor_of` says which processor made a group: the METS agent that
  names the group as its output (``mets:note ocrd:option="output-file-grp"``,
  with its parameters), else the last ``processingStep`` of the group's
  first PAGE file (name and parameters, such as the model), its version
  from the METS agents of that name.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ek._files import _xml
from ek._files._documents import Document
from ek._files._errors import InputError
from ek._files._folders import max_bytes_of, read_bounded
from ek._files._sides import Side, document_of
from ek._reading import MAX_FILE_MB, ReadOptions

METS_NAME = "mets.xml"
TEXT_MIMETYPES = (
    "application/vnd.prima.page+xml",
    "application/alto+xml",
    "application/xml",
    "text/xml",
    "text/html",
    "application/xhtml+xml",
    "text/vnd.hocr+html",
    "text/plain",
)
"""The ``MIMETYPE`` values of files ek reads (a file without one is read by its content)."""

_METS = "{http://www.loc.gov/METS/}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_SHOWN_GROUPS = 12  # groups a message lists
_VERSION = re.compile(r"^(\S+)\s+v?(\d[^\s]*)")  # "ocrd-tesserocr-recognize v0.8.3" -> name, version
_MODEL_KEYS = ("model", "checkpoint", "checkpoint_dir")  # the parameters that name a recognition model
_HEAD_CHUNK = 1 << 16  # bytes of a PAGE file parsed at a time while looking for its metadata


@dataclass(frozen=True)
class MetsFile:
    """One ``mets:file``: its ID, group (``USE``), ``MIMETYPE`` ("" when absent) and ``FLocat`` href."""

    id: str
    group: str
    mimetype: str
    href: str


@dataclass(frozen=True)
class Agent:
    """One ``mets:agent`` of the METS header: the software, its version, role, and the groups it wrote."""

    name: str
    version: str | None = None
    role: str = ""
    input_groups: tuple[str, ...] = ()
    output_groups: tuple[str, ...] = ()
    parameters: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Workspace:
    """An OCR-D workspace read from its METS (see the module doc).

    ``mets`` is the METS file, ``folder`` the workspace its hrefs are
    relative to; ``groups`` the file groups in METS order; ``files`` maps a
    file ID to its `MetsFile`; ``pages`` lists, in the structMap's order,
    each page id with the file IDs it points to; ``agents`` the METS agents.
    """

    mets: str
    folder: str
    groups: tuple[str, ...]
    files: Mapping[str, MetsFile]
    pages: tuple[tuple[str, tuple[str, ...]], ...]
    agents: tuple[Agent, ...] = ()
    by_group: Mapping[str, Mapping[str, tuple[MetsFile, ...]]] = field(default_factory=dict)

    def page_files(self, group: str) -> Mapping[str, tuple[MetsFile, ...]]:
        """``page id -> files of group`` for the pages that have any, in page order."""
        return self.by_group.get(group, {})


def mets_path(path: str | os.PathLike[str]) -> str | None:
    """The METS file of ``path`` (a folder holding ``mets.xml``, or a METS file), else None."""
    text = os.fspath(path)
    if os.path.isdir(text):
        inside = os.path.join(text, METS_NAME)
        return inside if os.path.isfile(inside) else None
    if os.path.isfile(text) and text.lower().endswith(".xml"):
        head = read_bounded(text, text, 1 << 20)[:4096].decode("utf-8", errors="replace")
        return text if re.search(r"<(\w+:)?mets[\s>]", head) else None
    return None


def read_workspace(path: str | os.PathLike[str]) -> Workspace:
    """The `Workspace` of a folder holding ``mets.xml``, or of a METS file (InputError when it is neither)."""
    mets = mets_path(path)
    if mets is None:
        raise InputError(
            f"{os.fspath(path)} is not an OCR-D workspace: give a folder holding {METS_NAME}, or the METS file itself."
        )
    root = _xml.parse(read_bounded(mets, mets, max_bytes_of(MAX_FILE_MB)), mets)
    if root.tag != f"{_METS}mets":
        raise InputError(f"{mets} is XML with root element <{root.tag.rpartition('}')[2]}>, not a METS (<mets:mets>).")
    groups: list[str] = []
    files: dict[str, MetsFile] = {}
    for grp in root.iter(f"{_METS}fileGrp"):
        use = grp.get("USE") or ""
        groups.append(use)
        for element in grp.iter(f"{_METS}file"):
            loc = element.find(f"{_METS}FLocat")
            href = "" if loc is None else loc.get(_XLINK_HREF) or ""
            fid = element.get("ID") or ""
            files[fid] = MetsFile(fid, use, element.get("MIMETYPE") or "", href)
    pages = _pages(root, mets)
    by_group: dict[str, dict[str, list[MetsFile]]] = {}
    for page, ids in pages:
        for f in (files[i] for i in ids if i in files):
            by_group.setdefault(f.group, {}).setdefault(page, []).append(f)
    return Workspace(
        mets=mets,
        folder=os.path.dirname(os.path.abspath(mets)),
        groups=tuple(dict.fromkeys(groups)),
        files=files,
        pages=pages,
        agents=tuple(_agent(a) for a in root.iter(f"{_METS}agent")),
        by_group={g: {p: tuple(fs) for p, fs in by_page.items()} for g, by_page in by_group.items()},
    )


def group_names(
    workspace: Workspace, asked: Sequence[str], *, exclude: str | None = None
) -> tuple[list[str], dict[str, str]]:
    """The groups ``asked`` names (names or globs, in the order asked), and why each unknown one is.

    A glob matches the groups in METS order, ``exclude`` (the gold group)
    aside. Returns ``(groups, unknown)``: ``unknown`` maps each name or
    glob that matches no group to its message (an error, or a listed skip).
    """
    found: list[str] = []
    unknown: dict[str, str] = {}
    for name in asked:
        if any(c in name for c in "*?["):
            matched = [g for g in workspace.groups if fnmatch.fnmatchcase(g, name) and g != exclude]
            if not matched:
                unknown[name] = f"--pred-group {name} matches no file group of {workspace.mets}; {_listed(workspace)}."
            found += matched
        elif name in workspace.groups:
            found.append(name)
        else:
            unknown[name] = no_group(workspace, name, "--pred-group")
    return list(dict.fromkeys(found)), unknown


def no_group(workspace: Workspace, name: str, flag: str) -> str:
    """The message for a group the METS does not have: the closest one, and the groups it has."""
    import difflib

    starting = [g for g in workspace.groups if g.startswith(name)]
    close = starting or difflib.get_close_matches(name, list(workspace.groups), n=1, cutoff=0.6)
    more = f" {len(starting)} groups start so: {flag} '{name}*' takes them all" if len(starting) > 1 else ""
    hint = f" (did you mean {close[0]}?{more})" if close else ""
    return f"{flag} {name}: {workspace.mets} has no file group {name!r}{hint}; {_listed(workspace)}."


def group_side(
    workspace: Workspace,
    group: str,
    *,
    role: str,
    pages: Sequence[str] | None = None,
    read: ReadOptions | None = None,
) -> Side:
    """The file of ``group`` for each page, read as one side whose ids are the page ids (as ``read`` says).

    ``pages`` (PRED: the gold side's ids) are the pages to read, and one
    the group has no file for is a failure; None reads every page the
    group has a file for (GOLD: the pages that have ground truth). A page
    whose file cannot be read (see the module doc) is in ``Side.errors``.
    """
    read = read or ReadOptions()
    if group not in workspace.groups:
        raise InputError(no_group(workspace, group, f"--{role}-group"))
    label = f"{role.upper()} group {group}"
    by_page = workspace.page_files(group)
    if not by_page:
        raise InputError(
            f"{label} of {workspace.mets} has no file on any page of the PHYSICAL structMap; "
            "check the group's name, or add its files to the structMap."
        )
    max_bytes = max_bytes_of(read.max_file_mb)
    ids: list[str] = []
    docs: dict[str, Document] = {}
    errors: dict[str, str] = {}
    paths: dict[str, str] = {}
    for page in by_page if pages is None else pages:
        try:
            path = _page_file(workspace, label, page, by_page.get(page, ()), read.follow_symlinks)
            paths[page] = path
            name = f"{role.upper()} {os.path.relpath(path, workspace.folder)}"
            data = read_bounded(path, name, max_bytes, regular_only=True)
            doc = document_of(data, name, role, read)
        except InputError as exc:
            errors[page] = str(exc)
            continue
        ids.append(page)
        docs[page] = doc
    if not ids and role == "gold":
        raise InputError(f"{label}: no page could be read; the first error: {next(iter(errors.values()))}")
    source = f"{label} of {workspace.mets}"
    return Side(
        source, role, tuple(ids), tuple(d.text for d in docs.values()), errors=errors, documents=docs, paths=paths
    )


def processor_of(workspace: Workspace, group: str) -> dict[str, Any] | None:
    """Who made ``group``: ``{processor, version, parameters, model, source}``, or None when nothing says.

    ``source`` is ``"mets"`` (an agent names the group as its output) or
    ``"page"`` (the last processing step of the group's first PAGE file,
    its version from the METS agents of that name when they agree).
    """
    agent = next((a for a in reversed(workspace.agents) if group in a.output_groups), None)
    if agent is not None:
        return _record(agent.name, agent.version, agent.parameters, "mets")
    files = next(iter(workspace.page_files(group).values()), None)
    step = None if not files else _last_step(workspace, files[0])
    if step is None:
        return None
    name, version, parameters = step
    if version is None:
        versions = {a.version for a in workspace.agents if a.name == name and a.version}
        version = versions.pop() if len(versions) == 1 else None
    return _record(name, version, parameters, "page")


# ---------------------------------------------------------------------------


def _pages(root: ET.Element, mets: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each ``mets:div TYPE="page"`` of the PHYSICAL structMap: its ID and the file IDs it points to."""
    physical = [s for s in root.iter(f"{_METS}structMap") if (s.get("TYPE") or "").upper() == "PHYSICAL"]
    if not physical:
        raise InputError(
            f'{mets} has no PHYSICAL structMap (<mets:structMap TYPE="PHYSICAL">), which says which file is '
            "which page; add one (ocrd workspace add --page-id ... records it)."
        )
    pages = []
    for div in physical[0].iter(f"{_METS}div"):
        if (div.get("TYPE") or "").lower() != "page":
            continue
        ids = [p.get("FILEID") for p in div.iter(f"{_METS}fptr")]
        ids += [a.get("FILEID") for a in div.iter(f"{_METS}area")]
        pages.append((div.get("ID") or "", tuple(i for i in ids if i)))
    if not pages:
        raise InputError(f'{mets}: its PHYSICAL structMap has no page (<mets:div TYPE="page">); add the pages.')
    return tuple(pages)


def _agent(element: ET.Element) -> Agent:
    """An `Agent` from ``mets:agent``: ``mets:name`` split into name and version, its ``ocrd:option`` notes."""
    raw = (element.findtext(f"{_METS}name") or "").strip()
    match = _VERSION.match(raw)
    name, version = (match.group(1), match.group(2)) if match else (raw, None)
    options: dict[str, str] = {}
    for note in element.iter(f"{_METS}note"):
        option = next((v for k, v in note.attrib.items() if k.rpartition("}")[2] == "option"), None)
        if option is not None:
            options[option] = (note.text or "").strip()
    parameters = None
    if options.get("parameter"):
        try:
            loaded = json.loads(options["parameter"])
        except ValueError:
            loaded = None
        parameters = loaded if isinstance(loaded, dict) else None
    return Agent(
        name=name,
        version=version,
        role=element.get("OTHERROLE") or element.get("ROLE") or "",
        input_groups=_split(options.get("input-file-grp")),
        output_groups=_split(options.get("output-file-grp")),
        parameters=parameters,
    )


def _split(groups: str | None) -> tuple[str, ...]:
    return tuple(g.strip() for g in (groups or "").split(",") if g.strip())


def _page_file(workspace: Workspace, label: str, page: str, files: Sequence[MetsFile], follow_symlinks: bool) -> str:
    """The local path of the one file of ``page`` (InputError naming what is wrong with it)."""
    if not files:
        raise InputError(
            f"{label} has no file for page {page} in {workspace.mets}; run the group's processor on that page, "
            "or pass --keep-going to score the pages it has."
        )
    if len(files) > 1:
        listed = ", ".join(f.href or f.id for f in files)
        raise InputError(f"{label} has {len(files)} files for page {page} ({listed}); a text group holds one per page.")
    f = files[0]
    if f.mimetype and f.mimetype.lower() not in TEXT_MIMETYPES:
        raise InputError(
            f"{label}: the file {f.href or f.id} of page {page} is {f.mimetype}, not a text format ek reads "
            "(PAGE, ALTO, hOCR, plain text); name a group of OCR output."
        )
    return _local(workspace, label, f, page, follow_symlinks)


def _local(workspace: Workspace, label: str, f: MetsFile, page: str, follow_symlinks: bool) -> str:
    """The path of ``f`` inside the workspace; InputError for a URL, a path that leaves it, or a missing file."""
    href = f.href
    parts = urllib.parse.urlsplit(href)
    if parts.scheme.lower() == "file":
        relative = urllib.parse.unquote(parts.path)
    elif len(parts.scheme) > 1:  # one letter is a Windows drive
        raise InputError(
            f"{label}: the file of page {page} is at the URL {href}; ek reads local files only: download "
            "the group into the workspace first (ocrd workspace find --file-grp ... --download)."
        )
    else:
        relative = href
    if not relative:
        raise InputError(f"{label}: the file {f.id} of page {page} has no FLocat xlink:href; add the file's path.")
    path = os.path.normpath(os.path.join(workspace.folder, relative))
    inside = _within(path, workspace.folder)
    if inside and not follow_symlinks:
        inside = _within(os.path.realpath(path), os.path.realpath(workspace.folder))
    if not inside:
        raise InputError(
            f"{label}: the file of page {page} ({href}) is outside the workspace {workspace.folder}; "
            "ek reads only files inside it (--follow-symlinks reads links that leave it)."
        )
    if not os.path.exists(path):
        raise InputError(
            f"{label}: the file of page {page} ({href}) does not exist in {workspace.folder}; fetch it "
            "(ocrd workspace find --file-grp ... --download), or pass --keep-going to score the other pages."
        )
    return path


def _within(path: str, folder: str) -> bool:
    folder = folder.rstrip(os.sep) + os.sep
    return path.startswith(folder)


def _listed(workspace: Workspace) -> str:
    """The groups of text files (PAGE, ALTO, ... by their MIME type), as a message lists them."""
    text = {f.group for f in workspace.files.values() if not f.mimetype or f.mimetype.lower() in TEXT_MIMETYPES}
    groups = [g for g in workspace.groups if g in text] or list(workspace.groups)
    shown = ", ".join(groups[:_SHOWN_GROUPS]) + (
        f" and {len(groups) - _SHOWN_GROUPS} more" if len(groups) > _SHOWN_GROUPS else ""
    )
    return f"its groups of text files are {shown}"


def _record(name: str, version: str | None, parameters: Mapping[str, Any] | None, source: str) -> dict[str, Any]:
    model = next((parameters[k] for k in _MODEL_KEYS if parameters and parameters.get(k)), None)
    return {
        "processor": name,
        "version": version,
        "parameters": None if parameters is None else dict(parameters),
        "model": model,
        "source": source,
    }


def _last_step(workspace: Workspace, f: MetsFile) -> tuple[str, str | None, dict[str, str]] | None:
    """``(processor, version, parameters)`` of the last ``processingStep`` in a PAGE file's metadata, or None."""
    try:
        path = _local(workspace, "", f, "", follow_symlinks=False)
        items = _metadata_items(path)
    except (InputError, OSError, ET.ParseError):
        return None  # no record is better than a failed evaluation: the file's own reading reports it
    steps = [i for i in items if i.get("type") == "processingStep" and i.get("value")]
    if not steps:
        return None
    last = steps[-1]
    parameters: dict[str, str] = {}
    version = None
    for labels in last.iter():
        if labels.tag.rpartition("}")[2] != "Labels":
            continue
        for lab in labels:
            if labels.get("externalId") == "version" and lab.get("type") == last.get("value"):
                version = lab.get("value")
            elif labels.get("externalId") != "version" and lab.get("type"):
                parameters[lab.get("type") or ""] = lab.get("value") or ""
    return str(last.get("value")), version, parameters


def _metadata_items(path: str) -> list[ET.Element]:
    """The ``MetadataItem`` elements of a PAGE file, parsed only up to the end of its ``Metadata``."""
    data = read_bounded(path, path, max_bytes_of(MAX_FILE_MB))
    _xml._check_prolog(data, path)  # no DTD, no entity: the pull parser below would expand them
    parser: Any = ET.XMLPullParser(events=("end",))  # "end" events only: (event, element) pairs
    for start in range(0, len(data), _HEAD_CHUNK):
        parser.feed(data[start : start + _HEAD_CHUNK])
        for _, element in parser.read_events():
            if element.tag.rpartition("}")[2] == "Metadata":
                return [e for e in element if e.tag.rpartition("}")[2] == "MetadataItem"]
    return []
