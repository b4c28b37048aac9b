"""Statistics and the report: tables printed as they fill, and the figures targets are judged on."""

from __future__ import annotations

from dataclasses import dataclass, field


def pct(samples: list[float], q: float) -> float:
    """Nearest-rank percentile; NaN for no samples (printed as "–")."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def ms(value: float | None) -> str:
    if value is None or value != value:
        return "–"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def ratio(a: float | None, b: float | None) -> str:
    if not a or not b or a != a or b != b:
        return "–"
    return f"{a / b:.2f}×"


def rate(value: float | None) -> str:
    return "–" if not value else f"{value:.0f}"


def loaded(run: tuple[float, list[float], list[str]]) -> str:
    """Calls/s under load, with the number of failed calls when any failed."""
    calls_per_s, _, errors = run
    return rate(calls_per_s) + (f" ({len(errors)} failed)" if errors else "")


@dataclass
class Section:
    key: str
    title: str
    columns: list[str]
    note: str = ""
    rows: list[tuple[str, list[str]]] = field(default_factory=list)

    def add(self, label: str, cells: list[str]) -> None:
        assert len(cells) == len(self.columns) - 1, (label, cells, self.columns)
        self.rows.append((label, cells))
        # Printed as it is measured, so a long run shows progress and CI logs keep every row.
        print(f"  {label:<52} " + "  ".join(f"{c:>9}" for c in cells), flush=True)

    def markdown(self) -> str:
        lines = [f"### {self.title}", ""]
        if self.note:
            lines += [self.note, ""]
        lines.append("| " + " | ".join(self.columns) + " |")
        lines.append("|" + "|".join(["---"] + ["---:"] * (len(self.columns) - 1)) + "|")
        for label, cells in self.rows:
            lines.append("| " + " | ".join([label, *cells]) + " |")
        return "\n".join(lines) + "\n"


class Report:
    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.values: dict[str, float] = {}  # figures the targets are judged on
        self.texts: dict[str, str] = {}  # figures that are words (why a row is unavailable, worst tool)
        self.targets: list[str] = []
        self.load: list[str] = []  # 1-minute load average when the run starts and after each section

    def section(self, key: str, title: str, columns: list[str], note: str = "") -> Section:
        section = Section(key, title, columns, note)
        self.sections.append(section)
        print(f"\n== {title}\n  {columns[0]:<52} " + "  ".join(f"{c[:9]:>9}" for c in columns[1:]), flush=True)
        return section
