"""The shot tracker's settings (``ShotConfig``), every one checked when the config is built."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ShotConfig:
    """start_mm: how far the white must move from its resting place to start a shot;
    moved_mm: how far an object ball must move to count as struck; onset_mm: the movement that
    dates when it was struck (and shows a resting ball set moving); pass_frac: how near (in
    ball diameters) the white's path must come to a resting ball's centre to have gone through
    or over it; still_mm_s: the speed below which a ball is still; rest_s: how long everything
    must be still to end a shot; smooth_s: the span of positions whose slope is a ball's speed
    for that; hidden_s: how long a ball out of sight keeps a shot going on the speed the
    tracker predicts for it (longer, the prediction is a guess), and the longest gap in the
    picture (frames that did not show the table) across which a path's turn is judged a
    cushion; max_speed_mm_s: the fastest a
    ball goes (a break-off is ~8 m/s): a step of the white faster than this is the tracker
    finding it again elsewhere, not a path.

    Contacts: fit_frames: frames fitted on each side of an interval (the delay, in frames,
    before a contact is certain); contact_tol_mm: how much farther than a diameter apart two
    balls' lines may pass and still have touched (the lines' noise); overlap_mm: how far the
    lines before must overlap two balls (or one ball and a cushion nose) to show a contact by
    themselves; kick_mm_s: the velocity change, beyond what the cloth's friction
    (``friction_mm_s2``) gives between the two lines, that is an impulse; start_mm_s: the speed
    of a resting ball's line after that shows it was set moving; cushion_mm_s: the speed across
    a cushion nose, in and out, of a bounce; nudge_mm: how far a resting ball the white came
    within a diameter (and ``contact_tol_mm``) of must have moved, slowly, to have been
    touched (the faintest touches move a ball a few millimetres); touch_mm: how much farther
    than a diameter apart the white and a ball at rest may be to touch (the position noise);
    knuckle_mm: how far inside a knuckle a bounce must meet the nose line to be on the cushion
    (nearer, or beyond, it is on the jaw). The meeting point is known to ~3 mm and cushion and
    jaw contacts both crowd the knuckles, so this trades one for the other: on the bench's
    stress set (300 shots) and sample clips, 5 mm missed 5 cushions met 1.5-4 mm inside a
    knuckle and took no jaw for a cushion; 1 mm finds 4 of them and still takes none; 0.5 mm
    takes a jaw met 0.9 mm inside (black_ending), 0 two more; slow_cushion_mm_s: the speed
    across a nose, in and out, of a slow bounce judged on lines over twice ``fit_frames``
    frames either side (their speeds' noise is ~7 mm/s at 1 mm of position noise and 30 fps,
    a third of the short lines'). On the stress set with detection noise seeds 0/1/2, 15 mm/s
    found 0/9/0 more cushions and 0/1/0 false ones; 10 mm/s 3/10/4 and 0/3/0; 7 mm/s (seed 1)
    14 and 6; sent_deg: how far the direction a contact sends a ball in may be off the line
    of centres the lines give (the centres a few millimetres off over a diameter, ~3 degrees,
    and the throw of the balls' friction, up to ~5): where a ball sent at a nose met it is
    known to its path's length times the tangent."""

    start_mm: float = 8.0
    moved_mm: float = 6.0
    onset_mm: float = 2.0
    pass_frac: float = 0.8
    still_mm_s: float = 15.0
    rest_s: float = 0.2
    smooth_s: float = 0.3
    hidden_s: float = 1.0
    max_speed_mm_s: float = 12000.0
    fit_frames: int = 3
    contact_tol_mm: float = 8.0
    overlap_mm: float = 8.0
    kick_mm_s: float = 250.0
    friction_mm_s2: float = 2000.0
    start_mm_s: float = 60.0
    cushion_mm_s: float = 25.0
    nudge_mm: float = 1.5
    touch_mm: float = 1.0
    knuckle_mm: float = 1.0
    slow_cushion_mm_s: float = 10.0
    sent_deg: float = 6.0

    def __post_init__(self):
        for name in ("start_mm", "moved_mm", "onset_mm", "pass_frac", "still_mm_s", "rest_s",
                     "smooth_s", "hidden_s", "max_speed_mm_s", "fit_frames", "contact_tol_mm",
                     "overlap_mm", "kick_mm_s", "friction_mm_s2", "start_mm_s", "cushion_mm_s",
                     "nudge_mm", "touch_mm", "knuckle_mm", "slow_cushion_mm_s", "sent_deg"):
            if not getattr(self, name) > 0:
                raise ValueError(f"ShotConfig.{name} must be positive, got {getattr(self, name)}")
        if int(self.fit_frames) != self.fit_frames or self.fit_frames < 2:
            raise ValueError(f"ShotConfig.fit_frames must be a whole number >= 2, "
                             f"got {self.fit_frames}")
