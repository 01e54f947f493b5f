"""Which files of a document folder are GOLD, which are PRED, and the id each one carries.

`Naming` holds the options (``gold_suffix``, ``pred_suffix``,
``pred_format``); `select` applies them to the files of one side;
`side_folder` finds the side's own subfolder in a ``gt/`` + ``ocr/``
layout. The rules are those the docstring of `ek._files` states under
"Folders"; in short:

* A document is a file with the extension of a format ek reads
  (`ek._files._formats.DOCUMENT_SUFFIXES`: ``.txt``, ``.hocr``, ``.html``,
  ``.htm``, ``.xml``), or any file whose name ends with ``--gold-suffix`` /
  ``--pred-suffix``.
* GOLD: with a gold suffix, the files ending with it; else every document
  (a file ending with the pred suffix excepted) but, when some files are
  named ``NAME.gt.EXT`` (or ``gt.EXT``), those named as their predictions:
  ``NAME.ENGINE.EXT``, another document of a ``gt.EXT`` folder, and
  ``NAME.EXT`` itself. So ``x.gt.txt`` beside ``kant_0017.xml`` is two
  GOLD documents, ``x`` and ``kant_0017``. A ``NAME.EXT`` beside
  ``NAME.gt.EXT`` is a second GOLD file for ``NAME`` unless PRED is this
  same folder (it is then the prediction), and a document named for no
  ``.gt`` file is a prediction without gold when PRED is this same folder
  (`ek._files._sides.settle` decides both once PRED is read).
* PRED: with a pred suffix, the files ending with it; else every document
  that is not a GOLD file by those names. Where both suffixes match a name,
  the longer decides.
* The id is the path below the folder without the suffix or the extension
  (``sub/NAME``); a document named as its own folder (``p1/p1.gt.txt``) or
  ``gt.EXT`` in a folder has the folder's id (``p1``).
* A PRED file whose id is no GOLD id pairs, in this order, with ``NAME``
  when it is named ``NAME.ENGINE.txt`` (dotted parts dropped from the right,
  one at a time), or with the document of its own folder (one subfolder
  per document). `candidates` lists these ids.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ek._files import _formats
from ek._files._errors import InputError
from ek._files._folders import Entry, Skipped, read_head
from ek._files._formats import DOCUMENT_SUFFIXES

PRED_FORMATS = _formats.NAMES
GOLD_FOLDERS = ("gt",)
PRED_FOLDERS = ("ocr", "pred")

Picked = tuple[str, Entry, tuple[str, ...]]
"""A file of a side: its id, its entry and the GOLD ids it may pair with (a PRED file's `candidates`)."""


@dataclass(frozen=True)
class Selection:
    """The files `select` picks for a side, the ones it skips, and what a GOLD folder of mixed names leaves open.

    ``doubles`` lists ``(id, gt file, other file)`` for each ``NAME.EXT``
    set aside beside a ``NAME.gt.EXT`` (a second GOLD file, or the
    prediction when PRED is this folder); ``loose`` holds the GOLD ids of
    documents named for no ``.gt`` file in a folder that has some.
    """

    picked: list[Picked]
    skipped: list[Skipped]
    doubles: tuple[tuple[str, Entry, Entry], ...] = ()
    loose: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Naming:
    """How the files of a folder are told apart and named (see the module doc)."""

    gold_suffix: str | None = None
    pred_suffix: str | None = None
    pred_format: str | None = None

    def __post_init__(self) -> None:
        for option in ("gold_suffix", "pred_suffix"):
            value = getattr(self, option)
            if value is not None and (not isinstance(value, str) or not value or "/" in value):
                raise ValueError(
                    f"{option} (--{option.replace('_', '-')}) must be the end of a file name, such as "
                    f"'.gt.txt' or '_PAGE.xml', got {value!r}."
                )
        if self.pred_format is not None and self.pred_format not in PRED_FORMATS:
            raise ValueError(
                f"pred_format (--pred-format) must be one of {', '.join(PRED_FORMATS)}, got {self.pred_format!r}."
            )

    def wants(self, name: str) -> bool:
        """Whether a file of this name may be a document of either side."""
        return os.path.splitext(name)[1].lower() in DOCUMENT_SUFFIXES or any(
            s and name.endswith(s) for s in (self.gold_suffix, self.pred_suffix)
        )

    def suffix_side(self, rel: str) -> str | None:
        """``"gold"`` or ``"pred"`` when ``rel`` ends with that side's suffix (the longer of two), else None."""
        matches = [
            (len(s), side)
            for s, side in ((self.gold_suffix, "gold"), (self.pred_suffix, "pred"))
            if s and rel.endswith(s)
        ]
        return max(matches)[1] if matches else None


def select(entries: tuple[Entry, ...], role: str, naming: Naming, label: str) -> Selection:
    """The files of ``role`` as ``(id, entry, candidates)`` in id order, the ones skipped (another format), and more.

    Raises InputError for two GOLD files with one id, and for several PRED
    files with one id (naming ``--pred-format`` when their formats differ).
    """
    if role == "gold":
        picked, doubles, loose = _gold_files(entries, naming)
    else:
        picked, doubles, loose = _pred_files(entries, naming), (), frozenset()
    skipped: list[Skipped] = []
    if role == "pred" and naming.pred_format is not None:
        kept = []
        for item in picked:
            found = file_format(item[1])
            if found == naming.pred_format:
                kept.append(item)
            else:
                skipped.append(
                    Skipped(
                        item[1].path,
                        f"its format is {found}; --pred-format {naming.pred_format} "
                        f"reads only {naming.pred_format} files",
                    )
                )
        picked = kept
    by_id: dict[str, list[Picked]] = {}
    for item in picked:
        by_id.setdefault(item[0], []).append(item)
    for doc_id, items in by_id.items():
        if len(items) > 1:
            raise _several(label, role, doc_id, [e for _, e, _ in items], naming)
    return Selection(sorted(picked, key=lambda item: item[0]), skipped, doubles, loose)


def file_format(entry: Entry) -> str:
    """The name of the file's format by its extension (for ``.xml``, its head: `ek._files._formats.file_format`)."""
    return _formats.file_format(entry.rel, lambda: read_head(entry.path))


def side_folder(path: str, role: str, label: str) -> str:
    """The side's subfolder of ``path`` when it holds ``gt/`` and ``ocr/`` (or ``pred/``) and no document itself."""
    with os.scandir(path) as found:
        entries = [(e.name, e.is_dir()) for e in found if not e.name.startswith(".")]
    names = [n for n, _ in entries]
    folders = [n for n, is_dir in entries if is_dir]
    gold = [n for n in folders if n.lower() in GOLD_FOLDERS]
    pred = [n for n in folders if n.lower() in PRED_FOLDERS]
    if (
        not gold
        or not pred
        or any(os.path.splitext(n)[1].lower() in DOCUMENT_SUFFIXES for n in names if n not in folders)
    ):
        return path
    mine = gold if role == "gold" else pred
    if len(mine) > 1:
        raise InputError(
            f"{label} holds the folders {' and '.join(m + '/' for m in sorted(mine))}; point "
            f"{role.upper()} at the one to read."
        )
    return os.path.join(path, mine[0])


def candidates(doc_id: str) -> tuple[str, ...]:
    """The GOLD ids a PRED file of id ``doc_id`` may pair with, in order (the id itself first)."""
    folder, _, base = doc_id.rpartition("/")
    parts = base.split(".")
    out = [doc_id] + [_joined(folder, ".".join(parts[:k])) for k in range(len(parts) - 1, 0, -1)]
    if folder:
        out.append(folder)
    return tuple(dict.fromkeys(_collapsed(c) for c in out))


# ---------------------------------------------------------------------------


def _gold_files(
    entries: tuple[Entry, ...], naming: Naming
) -> tuple[list[Picked], tuple[tuple[str, Entry, Entry], ...], frozenset[str]]:
    """GOLD's files, the ``NAME.EXT`` set aside beside a ``NAME.gt.EXT``, and the ids named for no ``.gt`` file."""
    if naming.gold_suffix:
        found: list[Picked] = [
            (_without(e.rel, naming.gold_suffix), e, ()) for e in entries if naming.suffix_side(e.rel) == "gold"
        ]
        return found, (), frozenset()
    documents = [e for e in entries if _is_document(e.rel) and naming.suffix_side(e.rel) != "pred"]
    picked: list[Picked] = [(key, e, ()) for e in documents if (key := _gt_key(e.rel)) is not None]
    named = {key: e for key, e, _ in reversed(picked)}  # two of one id are refused by select, which sees both
    rest = [e for e in documents if _gt_key(e.rel) is None]
    doubles: list[tuple[str, Entry, Entry]] = []
    loose: set[str] = set()
    for e in rest:
        key = _collapsed(_stem(e.rel))
        if key in named:
            doubles.append((key, named[key], e))
        elif not any(c in named for c in candidates(key)):  # else named as a prediction: NAME.ENGINE.EXT
            picked.append((key, e, ()))
            if named:
                loose.add(key)
    return picked, tuple(doubles), frozenset(loose)


def _pred_files(entries: tuple[Entry, ...], naming: Naming) -> list[Picked]:
    if naming.pred_suffix:
        found = [(_without(e.rel, naming.pred_suffix), e) for e in entries if naming.suffix_side(e.rel) == "pred"]
        return [(key, e, (key,)) for key, e in found if key]
    out: list[Picked] = []
    for e in entries:
        if _is_document(e.rel) and naming.suffix_side(e.rel) is None and _gt_key(e.rel) is None:
            key = _collapsed(_stem(e.rel))
            out.append((key, e, candidates(key)))
    return out


def _several(label: str, role: str, doc_id: str, entries: list[Entry], naming: Naming) -> InputError:
    names = sorted(e.rel for e in entries)
    if role == "gold":
        listed = " and ".join([", ".join(names[:-1]), names[-1]])
        count = "two" if len(names) == 2 else str(len(names))
        return InputError(f"{label} has {count} files for {doc_id!r} ({listed}); keep one.")
    formats = {file_format(e) for e in entries}
    if naming.pred_format is None and len(formats) > 1:
        return InputError(
            f"{label} holds several outputs for the document {doc_id!r} ({', '.join(names)}); pick one with "
            f"--pred-format {'|'.join(PRED_FORMATS)} (the others are listed as skipped), or keep one file."
        )
    return InputError(
        f"{label} has several files for {doc_id!r} ({', '.join(names)}); keep one, or pick them with --pred-suffix."
    )


def _is_document(rel: str) -> bool:
    return os.path.splitext(rel)[1].lower() in DOCUMENT_SUFFIXES


def _stem(rel: str) -> str:
    """``rel`` without its last extension."""
    folder, _, name = rel.rpartition("/")
    return _joined(folder, name.rsplit(".", 1)[0] if "." in name else name)


def _gt_key(rel: str) -> str | None:
    """The id of a file named as gold (``NAME.gt.EXT``, or ``gt.EXT`` in a folder), else None."""
    folder, _, base = _stem(rel).rpartition("/")
    if base.lower().endswith(".gt"):
        return _collapsed(_joined(folder, base[:-3]))
    if base.lower() == "gt":
        return folder or base
    return None


def _without(rel: str, suffix: str) -> str:
    return _collapsed(rel[: len(rel) - len(suffix)].rstrip("/"))


def _joined(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _collapsed(doc_id: str) -> str:
    """``p1/p1`` -> ``p1``: a document named as its own folder carries the folder's id."""
    folder, _, base = doc_id.rpartition("/")
    return folder if folder and folder.rpartition("/")[2] == base else doc_id
