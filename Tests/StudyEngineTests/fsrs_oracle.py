"""The FSRS oracle for the differential test and the benchmark: py-fsrs 6.3.2, fuzz off.

Reads one JSON request on stdin and writes one JSON answer on stdout.

  {"mode": "sequences", "parameters": [21 floats] | null,
   "sequences": [[{"rating": 1-4, "time": epoch seconds (int)}, ...], ...]}
    -> {"version": "6.3.2", "results": [[{"state": "learning|review|relearning", "step": int|null,
        "stability": float, "difficulty": float, "due": epoch seconds (float)}, ...], ...]}

  {"mode": "replay-log", "log": path to a review-log CSV, "repeat": n}
    -> {"version": ..., "reviews": reviews replayed per pass, "seconds": best pass time,
        "cards": {card_id: [stability, difficulty]}}
"""

import csv
import json
import sys
import time
from datetime import datetime, timezone

import fsrs
from fsrs import Card, Rating, Scheduler, State

STATES = {State.Learning: "learning", State.Review: "review", State.Relearning: "relearning"}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def version():
    from importlib.metadata import version as v

    return v("fsrs")


def sequences(request):
    parameters = request.get("parameters") or fsrs.scheduler.DEFAULT_PARAMETERS
    scheduler = Scheduler(parameters=parameters, enable_fuzzing=False)
    results = []
    for sequence in request["sequences"]:
        card = None
        out = []
        for review in sequence:
            when = datetime.fromtimestamp(review["time"], timezone.utc)
            if card is None:
                card = Card(card_id=1, due=when)
            card, _ = scheduler.review_card(card, Rating(review["rating"]), when)
            out.append(
                {
                    "state": STATES[card.state],
                    "step": card.step,
                    "stability": card.stability,
                    "difficulty": card.difficulty,
                    "due": (card.due - EPOCH).total_seconds(),
                }
            )
        results.append(out)
    return {"version": version(), "results": results}


def replay_log(request):
    rows = []
    with open(request["log"], newline="") as handle:
        for row in csv.DictReader(handle):
            when = datetime.fromisoformat(row["review_time"]).astimezone(timezone.utc)
            rows.append((row["card_id"], Rating(int(row["review_rating"])), when))
    scheduler = Scheduler(enable_fuzzing=False)
    best = None
    cards = {}
    for _ in range(max(1, int(request.get("repeat", 1)))):
        cards = {}
        start = time.perf_counter()
        for card_id, rating, when in rows:
            card = cards.get(card_id)
            if card is None:
                card = Card(card_id=1, due=when)
            card, _ = scheduler.review_card(card, rating, when)
            cards[card_id] = card
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return {
        "version": version(),
        "reviews": len(rows),
        "seconds": best,
        "cards": {k: [c.stability, c.difficulty] for k, c in cards.items()},
    }


def main():
    request = json.load(sys.stdin)
    mode = request.get("mode")
    if mode == "sequences":
        answer = sequences(request)
    elif mode == "replay-log":
        answer = replay_log(request)
    else:
        sys.exit(f"fsrs_oracle: unknown mode {mode!r}")
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
