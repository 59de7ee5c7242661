"""Generate the synthetic outreach-policy dataset the demo `research` pipeline analyses.

Why a generator instead of a hand-made file: the tool nodes hash the data files they
read, so the files must be reproducible byte for byte. Everything here is driven by one
seeded ``random.Random`` (stdlib only), and the writers fix line endings, float
formatting and JSON layout, so re-running this script rewrites identical files.

    python data/make_dataset.py [--out DIR]      (default: this script's folder)
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from pathlib import Path

SEED = 20261129
N_PARTICIPANTS = 360

REGIONS = ("north", "south", "east", "west")
GROUPS = ("A", "B", "C")
CHANNELS = ("email", "phone", "visit")
COLUMNS = (
    "participant_id",
    "region",
    "group",
    "channel",
    "contacts",
    "cost_usd",
    "converted",
    "days_to_convert",
)

POLICIES = {
    "A": {
        "name": "Standard reminders",
        "description": "Scheduled reminders, mostly by email, on a fixed cadence.",
    },
    "B": {
        "name": "Personal follow-up",
        "description": "A caseworker follows up by phone or home visit; costly but persuasive.",
    },
    "C": {
        "name": "Community partners",
        "description": "Local partner organisations reach out at a discounted rate per contact.",
    },
}

# Channel mix per policy (email, phone, visit): B leans on expensive visits.
CHANNEL_MIX = {"A": (0.70, 0.25, 0.05), "B": (0.30, 0.50, 0.20), "C": (0.45, 0.45, 0.10)}
# Cost of one contact per channel, and the per-policy price multiplier (C is cheaper).
CHANNEL_COST = {"email": 0.80, "phone": 3.60, "visit": 9.50}
POLICY_PRICE = {"A": 1.00, "B": 1.00, "C": 0.70}
# Base conversion chance per policy, shifted per region: partners are strong in the
# south and weak in the north; personal follow-up works best in the east.
BASE_RATE = {"A": 0.20, "B": 0.42, "C": 0.28}
REGION_SHIFT = {
    "A": {"north": 0.04, "south": -0.02, "east": 0.00, "west": 0.02},
    "B": {"north": 0.02, "south": -0.08, "east": 0.10, "west": -0.02},
    "C": {"north": -0.12, "south": 0.14, "east": -0.04, "west": 0.02},
}
CHANNEL_LIFT = {"email": 0.00, "phone": 0.04, "visit": 0.10}


def _pick(rng: random.Random, options: tuple[str, ...], weights: tuple[float, ...]) -> str:
    """Weighted choice from one ``rng.random()`` draw (stable across Python versions)."""
    x = rng.random() * sum(weights)
    for option, weight in zip(options, weights, strict=True):
        x -= weight
        if x < 0:
            return option
    return options[-1]


def generate_rows(seed: int = SEED, n: int = N_PARTICIPANTS) -> list[list[str]]:
    """Draw every participant as a row of already-formatted CSV cells."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        region = REGIONS[int(rng.random() * len(REGIONS))]
        group = GROUPS[i % len(GROUPS)]  # balanced arms, as in a designed experiment
        channel = _pick(rng, CHANNELS, CHANNEL_MIX[group])
        contacts = 1 + min(7, int(rng.random() * rng.random() * 9.5))
        noise = 0.85 + 0.3 * rng.random()
        cost = contacts * CHANNEL_COST[channel] * POLICY_PRICE[group] * noise
        p = BASE_RATE[group] + REGION_SHIFT[group][region] + CHANNEL_LIFT[channel]
        p += 0.025 * (contacts - 1)
        converted = rng.random() < min(0.95, max(0.02, p))
        days = 2 + int(rng.random() * 10) + 2 * contacts if converted else None
        rows.append(
            [
                f"P{i + 1:04d}",
                region,
                group,
                channel,
                str(contacts),
                f"{cost:.2f}",
                "1" if converted else "0",
                "" if days is None else str(days),
            ]
        )
    return rows


def metadata() -> dict:
    """Describe the dataset so the `research` node can profile it without guessing."""
    return {
        "title": "Outreach policy experiment",
        "description": (
            "Participants were randomly assigned one of three outreach policies; each row "
            "records how they were contacted, what the outreach cost and whether they "
            "converted (enrolled in the programme)."
        ),
        "policies": POLICIES,
        "currency": "USD",
        "columns": {
            "participant_id": "Participant identifier, P0001 upwards.",
            "region": "Region the participant lives in: north, south, east or west.",
            "group": "Outreach policy assigned: A, B or C (see policies).",
            "channel": "Main contact channel used: email, phone or visit.",
            "contacts": "Number of outreach contacts made (1-8).",
            "cost_usd": "Total outreach cost for this participant, in USD.",
            "converted": "1 if the participant converted, else 0.",
            "days_to_convert": "Days from first contact to conversion; empty if not converted.",
        },
        "date_collected": "2026-09-01/2026-10-31",
        "rows": N_PARTICIPANTS,
        "provenance": (
            f"Synthetic data, not real people: generated by data/make_dataset.py with "
            f"random.Random({SEED}) (Python stdlib); re-running it reproduces these files "
            f"byte for byte."
        ),
    }


def write_dataset(out_dir: Path) -> tuple[Path, Path]:
    """Write outreach.csv and outreach.json into ``out_dir`` with fixed formatting."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / "outreach.csv"
    json_path = out_dir / "outreach.json"
    with csv_path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(generate_rows())
    text = json.dumps(metadata(), indent=2, ensure_ascii=False) + "\n"
    json_path.write_text(text, encoding="utf-8", newline="\n")
    return csv_path, json_path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args(argv)
    for path in write_dataset(args.out):
        print(path)


if __name__ == "__main__":
    main()
