"""Tracking: the Kalman motion model, association, measurement, balls leaving play and new
balls, and the table state."""
