# One entry point for every check; CI calls `make check`.
PY ?= python

.PHONY: check lint test test-fast bench samples contact-sheet

check: lint test

lint:
	$(PY) -m ruff check calibration tracker tests scripts sample_videos

test:
	$(PY) -m pytest -q -n auto

test-fast:
	$(PY) -m pytest -q -m "not slow"

samples:
	$(PY) sample_videos/make_samples.py

contact-sheet:
	$(PY) sample_videos/contact_sheet.py
