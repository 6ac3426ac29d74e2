"""The vision stages as the pipeline takes them: a frame to classified detections, with the
detector's cloth model adapting over frames (``make_detect``), in three steps a pipeline may run
on different threads or processes."""

from __future__ import annotations

import numpy as np

from calibration.calibrate import Calibration


class ColourStage:
    """The colour stage of ``make_detect``: what ``find`` gave (the detections and the cloth
    model they were found against) -> classified Detections, with the classifier's state.
    The very same detections (the detector's answer when nothing on the table changed) get the
    very same answer. A plain object, so that a pipeline can hand it to another process."""

    def __init__(self):
        from tracker.vision.colour import ColourClassifier

        self.classifier = ColourClassifier()
        self._last: tuple = (None, None)  # the last detections and their classification

    def __call__(self, found):
        detections, cloth = found
        if detections is not self._last[0]:
            self._last = (detections, self.classifier.classify(detections, cloth))
        return self._last[1]


def make_detect(cal: Calibration):
    """frame -> classified Detections, with the detector's cloth model adapting over frames.
    The function's ``detector`` attribute is its ``BallDetector``; its ``stages`` the three
    steps it takes, which a pipeline may run on different threads or processes: ``shrink``
    (frame -> its work image, from the frame alone, in any order), ``find`` (frame and what
    ``shrink`` gave it, or None -> the detections and the cloth model they were found against)
    and ``classify`` (a ``ColourStage``: what ``find`` gave -> classified Detections), the last
    two in frame order."""
    from tracker.vision.detect import BallDetector

    detector = BallDetector(cal)
    classify = ColourStage()

    def shrink(image: np.ndarray):
        return detector, detector.work_image(image)

    def find(image: np.ndarray, shrunk=None):
        # a work image made by the detector this one replaced (a knocked camera) is not used
        work = shrunk[1] if shrunk is not None and shrunk[0] is detector else None
        return detector.detect(image, work), detector.cloth

    def detect(image: np.ndarray):
        return classify(find(image))

    detect.detector = detector
    detect.stages = (shrink, find, classify)
    return detect
