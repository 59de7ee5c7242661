"""Pure computation behind the demo `research` pipeline's tool nodes.

`research` profiles the dataset, `analyse` ranks the outreach policies, `verify`
recomputes the numbers along a second, independent code path, and `publish` renders the
report. Nothing here imports Django or Burr: each function is a plain value-in/value-out
computation, so results are deterministic, JSON-serialisable and safe to cache by
(tool, version, args, dataset sha256).
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

METRICS = (
    "participants",
    "conversions",
    "conversion_rate",
    "total_cost",
    "cost_per_conversion",
    "mean_days_to_convert",
)
TOLERANCE = 1e-3
MAX_COST_SCALE = 1000.0
MAX_CONTACTS = 8
REGIONS = ("east", "north", "south", "west")  # what data/make_dataset.py generates


def file_sha256(path: Path) -> str:
    """Hash a data file so tool cache keys change whenever the data changes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(65536), b""):
            digest.update(chunk)
    return digest.hexdigest()


def load_rows(csv_path: Path) -> list[dict]:
    """Read the dataset with typed values, so callers never compare strings as numbers."""
    with Path(csv_path).open(encoding="utf-8", newline="") as fh:
        return [
            {
                "participant_id": row["participant_id"],
                "region": row["region"],
                "group": row["group"],
                "channel": row["channel"],
                "contacts": int(row["contacts"]),
                "cost_usd": float(row["cost_usd"]),
                "converted": row["converted"] == "1",
                "days_to_convert": int(row["days_to_convert"]) if row["days_to_convert"] else None,
            }
            for row in csv.DictReader(fh)
        ]


def _check_region(region: object, regions: list[str]) -> str:
    """Reject a region the data does not have, listing the valid choices."""
    if region != "all" and region not in regions:
        choices = ", ".join(["all", *sorted(regions)])
        raise ValueError(f"unknown region {region!r}; choose one of {choices}")
    return str(region)


def _check_params(
    region: object, min_contacts: object, cost_scale: object, regions: list[str]
) -> dict:
    """Validate analysis arguments (they may come from a user's fork override)."""
    region = _check_region(region, regions)
    if isinstance(min_contacts, bool) or not isinstance(min_contacts, int):
        raise ValueError(
            f"min_contacts must be an integer from 1 to {MAX_CONTACTS}, got {min_contacts!r}"
        )
    if not 1 <= min_contacts <= MAX_CONTACTS:
        raise ValueError(f"min_contacts must be from 1 to {MAX_CONTACTS}, got {min_contacts}")
    if isinstance(cost_scale, bool) or not isinstance(cost_scale, int | float):
        raise ValueError(f"cost_scale must be a number, got {cost_scale!r}")
    if not (math.isfinite(cost_scale) and 0 < cost_scale <= MAX_COST_SCALE):
        raise ValueError(f"cost_scale must be > 0 and <= {MAX_COST_SCALE:g}, got {cost_scale!r}")
    # Echo cost_scale as a float so 1 and 1.0 hash to the same canonical JSON.
    return {"region": region, "min_contacts": min_contacts, "cost_scale": float(cost_scale)}


def profile_dataset(csv_path: Path, meta_path: Path, region: str = "all") -> dict:
    """Describe the dataset for the `research` node: what it holds and where it came from."""
    rows = load_rows(csv_path)
    meta = json.loads(Path(meta_path).read_text(encoding="utf-8"))
    region = _check_region(region, sorted({r["region"] for r in rows}))
    selected = [r for r in rows if region == "all" or r["region"] == region]
    with Path(csv_path).open(encoding="utf-8", newline="") as fh:
        columns = next(csv.reader(fh), [])
    policies = meta.get("policies", {})
    return {
        "title": meta.get("title", ""),
        "description": meta.get("description", ""),
        "region": region,
        "rows": len(selected),
        "columns": columns,
        "column_descriptions": meta.get("columns", {}),
        "regions": sorted({r["region"] for r in rows}),
        "channels": sorted({r["channel"] for r in rows}),
        "groups": {
            g: {
                "name": policies.get(g, {}).get("name", g),
                "description": policies.get(g, {}).get("description", ""),
                "participants": sum(1 for r in selected if r["group"] == g),
            }
            for g in sorted({r["group"] for r in rows})
        },
        "currency": meta.get("currency", "USD"),
        "date_collected": meta.get("date_collected", ""),
        "provenance": meta.get("provenance", ""),
        "dataset_sha256": file_sha256(csv_path),
    }


def _ratio(numerator: float, denominator: int) -> float | None:
    """A rounded ratio, or None when there is nothing to divide by (never 0 or inf)."""
    return round(numerator / denominator, 4) if denominator else None


def analyse(
    csv_path: Path, *, region: str = "all", min_contacts: int = 1, cost_scale: float = 1.0
) -> dict:
    """Compare the outreach policies on conversion and cost, for the `analyse` node.

    Every group in the dataset appears (sorted), even if the filters leave it empty, so
    the result's shape is stable across arguments and a diff shows changed numbers only.
    """
    rows = load_rows(csv_path)
    params = _check_params(region, min_contacts, cost_scale, sorted({r["region"] for r in rows}))
    used = [
        r
        for r in rows
        if params["region"] in ("all", r["region"]) and r["contacts"] >= params["min_contacts"]
    ]
    groups = {}
    for group in sorted({r["group"] for r in rows}):
        members = [r for r in used if r["group"] == group]
        converted = [r for r in members if r["converted"]]
        cost = sum(r["cost_usd"] for r in members) * params["cost_scale"]
        groups[group] = {
            "participants": len(members),
            "conversions": len(converted),
            "conversion_rate": _ratio(len(converted), len(members)),
            "total_cost": round(cost, 4),
            "cost_per_conversion": _ratio(cost, len(converted)),
            "mean_days_to_convert": _ratio(
                sum(r["days_to_convert"] or 0 for r in converted), len(converted)
            ),
        }
    ranked = sorted((m["cost_per_conversion"], g) for g, m in groups.items() if m["conversions"])
    return {
        "groups": groups,
        "best_group": ranked[0][1] if ranked else None,
        "params": params,
        "rows_used": len(used),
    }


def recompute(csv_path: Path, params: dict) -> dict:
    """Recompute analyse()'s numbers along a different code path, for the `verify` node.

    Deliberately shares no computation with analyse()/load_rows(): raw csv.reader rows by
    column index and exact decimal arithmetic, so a bug in one path shows up as a mismatch
    instead of being reproduced by the check.
    """
    with Path(csv_path).open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        records = list(reader)
    i_region, i_group, i_contacts, i_cost, i_conv, i_days = (
        header.index(name)
        for name in ("region", "group", "contacts", "cost_usd", "converted", "days_to_convert")
    )
    checked = _check_params(
        params.get("region", "all"),
        params.get("min_contacts", 1),
        params.get("cost_scale", 1.0),
        sorted({rec[i_region] for rec in records}),
    )
    scale = Decimal(repr(checked["cost_scale"]))
    totals: dict[str, list] = {rec[i_group]: [0, 0, Decimal(0), 0] for rec in records}
    rows_used = 0
    for rec in records:
        if checked["region"] != "all" and rec[i_region] != checked["region"]:
            continue
        if int(rec[i_contacts]) < checked["min_contacts"]:
            continue
        rows_used += 1
        acc = totals[rec[i_group]]
        acc[0] += 1
        acc[2] += Decimal(rec[i_cost])
        if rec[i_conv] == "1":
            acc[1] += 1
            acc[3] += int(rec[i_days])

    def q(value: Decimal) -> float:
        return float(value.quantize(Decimal("0.0001"), rounding=ROUND_HALF_EVEN))

    groups, best = {}, None
    for group in sorted(totals):
        n, conv, cost, days = totals[group]
        cost *= scale
        groups[group] = {
            "participants": n,
            "conversions": conv,
            "conversion_rate": q(Decimal(conv) / n) if n else None,
            "total_cost": q(cost),
            "cost_per_conversion": q(cost / conv) if conv else None,
            "mean_days_to_convert": q(Decimal(days) / conv) if conv else None,
        }
        if conv and (best is None or cost / conv < best[0]):
            best = (cost / conv, group)
    return {
        "groups": groups,
        "best_group": best[1] if best else None,
        "params": checked,
        "rows_used": rows_used,
    }


def _same(reported: object, recomputed: object) -> bool:
    """Numbers agree within TOLERANCE; anything else (None, strings) must be equal."""
    numeric = (int, float)
    if (
        isinstance(reported, numeric)
        and isinstance(recomputed, numeric)
        and not isinstance(reported, bool)
        and not isinstance(recomputed, bool)
    ):
        return math.isfinite(reported) and abs(reported - recomputed) <= TOLERANCE
    return reported == recomputed


def verify_analysis(csv_path: Path, reported: dict) -> dict:
    """Check every reported per-group number against recompute().

    Returns the mismatches instead of raising: whether a mismatch fails the run is the
    caller's decision. Raises ValueError only when there is nothing to check against.
    """
    if not isinstance(reported, dict) or not isinstance(reported.get("params"), dict):
        raise ValueError("reported analysis has no 'params' dict to recompute with")
    if not isinstance(reported.get("groups"), dict):
        raise ValueError("reported analysis has no 'groups' dict to verify")
    truth = recompute(csv_path, reported["params"])
    checks, mismatches = 0, []

    def check(group: str | None, metric: str, got: object, want: object) -> None:
        nonlocal checks
        checks += 1
        if not _same(got, want):
            mismatches.append(
                {"group": group, "metric": metric, "reported": got, "recomputed": want}
            )

    for group in sorted(set(reported["groups"]) | set(truth["groups"])):
        got = reported["groups"].get(group)
        got = got if isinstance(got, dict) else {}
        want = truth["groups"].get(group, {})
        for metric in [*METRICS, *sorted(set(got) - set(METRICS))]:
            check(group, metric, got.get(metric), want.get(metric))
    check(None, "best_group", reported.get("best_group"), truth["best_group"])
    if "rows_used" in reported:
        check(None, "rows_used", reported["rows_used"], truth["rows_used"])
    return {"checks": checks, "mismatches": mismatches, "ok": not mismatches}


def _policy_name(metadata: dict, group: str) -> str:
    """The policy's human name from the dataset metadata or a research profile."""
    for key in ("policies", "groups"):
        entry = (metadata.get(key) or {}).get(group)
        name = entry.get("name") if isinstance(entry, dict) else entry
        if name:
            return str(name)
    return group


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def render_report(
    *,
    title: str,
    question: str,
    summary: str,
    sections: list[str],
    analysis: dict,
    verification: dict,
    metadata: dict,
) -> str:
    """Render the markdown report `publish` writes.

    Byte-for-byte deterministic (no dates, paths or run ids), so an unchanged replay
    reproduces the artifact hash. The prose comes from the LLM and is placed verbatim.
    """
    currency = metadata.get("currency", "USD")
    params = analysis.get("params", {})
    lines = [f"# {title}", "", f"**Question:** {question}", "", summary.strip(), "", "## Results"]
    lines += [
        "",
        f"Region: {params.get('region', 'all')}; minimum contacts: "
        f"{params.get('min_contacts', 1)}; cost scale: {params.get('cost_scale', 1.0)}; "
        f"rows used: {analysis.get('rows_used', 0)}.",
        "",
        f"| Group | Policy | Participants | Conversions | Conversion rate "
        f"| Total cost ({currency}) | Cost per conversion ({currency}) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for group, m in sorted(analysis.get("groups", {}).items()):
        rate = m.get("conversion_rate")
        lines.append(
            f"| {group} | {_policy_name(metadata, group)} | {m.get('participants', 0)} "
            f"| {m.get('conversions', 0)} | {'n/a' if rate is None else f'{rate * 100:.2f}%'} "
            f"| {_money(m.get('total_cost'))} | {_money(m.get('cost_per_conversion'))} |"
        )
    best = analysis.get("best_group")
    if best is None:
        lines += ["", "**Best group:** none (no conversions among the rows analysed)."]
    else:
        cpc = analysis["groups"][best].get("cost_per_conversion")
        lines += [
            "",
            f"**Best group:** {best} ({_policy_name(metadata, best)}), with the lowest "
            f"cost per conversion: {_money(cpc)} {currency}.",
        ]
    for section in sections:
        if section.strip():
            lines += ["", section.strip()]
    checks, mismatches = verification.get("checks", 0), verification.get("mismatches", [])
    if verification.get("ok") and not mismatches:
        line = f"{checks} checks passed, numbers recomputed independently."
    else:
        found = "; ".join(
            f"{m.get('metric')} of {m.get('group') or 'the analysis'}: reported "
            f"{m.get('reported')}, recomputed {m.get('recomputed')}"
            for m in mismatches
        )
        line = f"{checks - len(mismatches)} of {checks} checks passed; mismatches: {found}."
    lines += ["", f"**Verification:** {line}", ""]
    return "\n".join(lines)
