"""The camera model fitted to table landmarks: pinhole with square pixels, principal point at the
image centre (unless the intrinsics are given) and radial distortion (k1, and k2 where the
lens bends clearly, with the principal point and the tangential terms then free too).

Observations are points on straight lines (cushion noses, the baulk line), points on circles
(the D) and single points (spots), each with a known height above the cloth; the fit minimises
their pixel residuals with a robust loss so that stray edges do not pull it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from scipy.optimize import least_squares

from calibration.camera import Camera


@dataclass
class Observations:
    """Matched image evidence. Lines: ``line_px`` (N, 2) raw px on the 3-D segments ``line_a``,
    ``line_b`` (N, 3) mm. Arcs: ``arc_px`` (M, 2) on circles ``arc_centre`` (M, 3) mm of radius
    ``arc_radius`` (M,) mm (horizontal planes). Points: ``point_px`` (P, 2) at ``point_mm`` (P, 3).
    ``*_group`` name the landmark each row belongs to; ``*_w`` weigh each row's residual.
    ``line_slide`` names, for each line row, the offset (``CameraModel.offsets``) by which its
    line may be slid along ``line_normal`` (N, 2) table mm ("" where it is fixed)."""

    line_px: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    line_a: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    line_b: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    line_group: list = field(default_factory=list)
    line_w: np.ndarray = field(default_factory=lambda: np.zeros(0))
    line_slide: list = field(default_factory=list)
    line_normal: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    arc_px: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    arc_centre: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    arc_radius: np.ndarray = field(default_factory=lambda: np.zeros(0))
    arc_group: list = field(default_factory=list)
    arc_w: np.ndarray = field(default_factory=lambda: np.zeros(0))
    point_px: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    point_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    point_group: list = field(default_factory=list)
    point_w: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def add_line(self, px, a, b, group, weight=1.0, slide="", normal=(0.0, 0.0)):
        px = np.asarray(px, float).reshape(-1, 2)
        n = len(px)
        self.line_px = np.r_[self.line_px, px]
        self.line_a = np.r_[self.line_a, np.broadcast_to(np.asarray(a, float), (n, 3))]
        self.line_b = np.r_[self.line_b, np.broadcast_to(np.asarray(b, float), (n, 3))]
        self.line_group += [group] * n
        self.line_w = np.r_[self.line_w, np.full(n, float(weight))]
        self.line_slide += [slide] * n
        self.line_normal = np.r_[self.line_normal,
                                 np.broadcast_to(np.asarray(normal, float), (n, 2))]

    def add_arc(self, px, centre, radius, group, weight=1.0):
        px = np.asarray(px, float).reshape(-1, 2)
        n = len(px)
        self.arc_px = np.r_[self.arc_px, px]
        self.arc_centre = np.r_[self.arc_centre, np.broadcast_to(np.asarray(centre, float), (n, 3))]
        self.arc_radius = np.r_[self.arc_radius, np.full(n, float(radius))]
        self.arc_group += [group] * n
        self.arc_w = np.r_[self.arc_w, np.full(n, float(weight))]

    def add_point(self, px, mm, group, weight=1.0):
        self.point_px = np.r_[self.point_px, np.asarray(px, float).reshape(1, 2)]
        self.point_mm = np.r_[self.point_mm, np.asarray(mm, float).reshape(1, 3)]
        self.point_group.append(group)
        self.point_w = np.r_[self.point_w, float(weight)]

    # the per-row arrays and lists, by kind of landmark
    _ARRAYS = {"line": ("line_px", "line_a", "line_b", "line_w", "line_normal"),
               "arc": ("arc_px", "arc_centre", "arc_radius", "arc_w"),
               "point": ("point_px", "point_mm", "point_w")}
    _LISTS = {"line": ("line_group", "line_slide"), "arc": ("arc_group",),
              "point": ("point_group",)}

    def extend(self, other: Observations) -> Observations:
        """A new set holding the rows of both."""
        out = Observations()
        for names in self._ARRAYS.values():
            for name in names:
                setattr(out, name, np.r_[getattr(self, name), getattr(other, name)])
        for names in self._LISTS.values():
            for name in names:
                setattr(out, name, getattr(self, name) + getattr(other, name))
        return out

    def rows(self, line: np.ndarray, arc: np.ndarray, point: np.ndarray) -> Observations:
        """A new set holding the rows that the bool masks ``line``, ``arc``, ``point`` pick."""
        out = Observations()
        for kind, keep in (("line", line), ("arc", arc), ("point", point)):
            for name in self._ARRAYS[kind]:
                setattr(out, name, getattr(self, name)[keep])
            for name in self._LISTS[kind]:
                setattr(out, name, [v for v, k in zip(getattr(self, name), keep) if k])
        return out

    @property
    def count(self) -> int:
        return len(self.line_px) + len(self.arc_px) + len(self.point_px)

    def lines_mm(self, offsets: dict) -> tuple[np.ndarray, np.ndarray]:
        """Each line row's end points (N, 3) mm, slid by ``offsets`` (name -> mm)."""
        if not offsets:
            return self.line_a, self.line_b
        d = np.array([offsets.get(name, 0.0) if name else 0.0 for name in self.line_slide])
        move = np.c_[d[:, None] * self.line_normal, np.zeros(len(d))]
        return self.line_a + move, self.line_b + move


@dataclass
class CameraModel:
    """Free parameters of the fit. ``K`` fixed when intrinsics are given; otherwise the focal
    length is free with the principal point at the image centre. ``dist`` fixed when given;
    otherwise ``k1`` is free when ``fit_k1`` and ``k2`` when ``fit_k2`` too. ``f_prior``: the
    focal length the fit leans to where the observations leave it free (see ``fit``).
    ``offsets``: how far (mm) each named set of line observations lies from its modelled line
    (``Observations.line_slide``), fitted for the names in ``fit_offsets``."""

    image_size: tuple[int, int]
    f: float
    rvec: np.ndarray
    tvec: np.ndarray
    k1: float = 0.0
    K_fixed: np.ndarray | None = None
    dist_fixed: np.ndarray | None = None
    fit_k1: bool = True
    shift: tuple[float, float] = (0.0, 0.0)
    fit_shift: bool = False
    k2: float = 0.0
    fit_k2: bool = False
    f_prior: float | None = None
    offsets: dict = field(default_factory=dict)
    fit_offsets: tuple = ()
    tangential: tuple[float, float] = (0.0, 0.0)
    fit_tangential: bool = False

    @property
    def K(self) -> np.ndarray:
        if self.K_fixed is not None:
            return np.asarray(self.K_fixed, float)
        w, h = self.image_size
        cx, cy = (w - 1) / 2 + self.shift[0], (h - 1) / 2 + self.shift[1]
        return np.array([[self.f, 0, cx], [0, self.f, cy], [0, 0, 1.0]])

    @property
    def dist(self) -> np.ndarray:
        if self.dist_fixed is not None:
            return np.asarray(self.dist_fixed, float)
        return np.array([self.k1, self.k2, *self.tangential, 0], float)

    def camera(self) -> Camera:
        R = cv2.Rodrigues(np.asarray(self.rvec, float).reshape(3, 1))[0]
        return Camera(self.K, self.dist, R, np.asarray(self.tvec, float), self.image_size)

    def flipped(self, width_mm: float, length_mm: float) -> CameraModel:
        """The same camera with the table turned end for end: (x, y) -> (w - x, L - y)."""
        R = cv2.Rodrigues(np.asarray(self.rvec, float).reshape(3, 1))[0]
        F = np.diag([-1.0, -1.0, 1.0])
        g = np.array([width_mm, length_mm, 0.0])
        R2 = R @ F
        t2 = R @ g + self.tvec
        return CameraModel(self.image_size, self.f, cv2.Rodrigues(R2)[0].ravel(), t2, self.k1,
                           self.K_fixed, self.dist_fixed, self.fit_k1, self.shift,
                           self.fit_shift, self.k2, self.fit_k2, self.f_prior,
                           tangential=self.tangential, fit_tangential=self.fit_tangential)

    # -- parameter vector ---------------------------------------------------------------------
    def vector(self) -> np.ndarray:
        v = [np.log(self.f)] if self.K_fixed is None else []
        v += list(np.ravel(self.rvec)) + list(np.ravel(self.tvec) / 1000.0)
        if self.dist_fixed is None and self.fit_k1:
            v.append(self.k1)
            if self.fit_k2:
                v.append(self.k2)
        if self.K_fixed is None and self.fit_shift:
            v += [self.shift[0] / 100.0, self.shift[1] / 100.0]
        v += [self.offsets.get(name, 0.0) for name in self.fit_offsets]
        if self.dist_fixed is None and self.fit_tangential:
            v += [self.tangential[0] * 100.0, self.tangential[1] * 100.0]
        return np.array(v, float)

    def with_vector(self, v) -> CameraModel:
        v = list(v)
        f = float(np.exp(v.pop(0))) if self.K_fixed is None else self.f
        rvec = np.array(v[:3])
        tvec = np.array(v[3:6]) * 1000.0
        rest = v[6:]
        free = self.dist_fixed is None and self.fit_k1
        k1 = float(rest.pop(0)) if free else self.k1
        k2 = float(rest.pop(0)) if free and self.fit_k2 else self.k2
        shift = self.shift
        if self.K_fixed is None and self.fit_shift:
            shift = (float(rest.pop(0)) * 100.0, float(rest.pop(0)) * 100.0)
        offsets = dict(self.offsets)
        offsets.update((name, float(x)) for name, x in zip(self.fit_offsets, rest))
        rest = rest[len(self.fit_offsets):]
        tangential = self.tangential
        if self.dist_fixed is None and self.fit_tangential:
            tangential = (float(rest[0]) / 100.0, float(rest[1]) / 100.0)
        return CameraModel(self.image_size, f, rvec, tvec, k1, self.K_fixed, self.dist_fixed,
                           self.fit_k1, shift, self.fit_shift, k2, self.fit_k2, self.f_prior,
                           offsets, self.fit_offsets, tangential, self.fit_tangential)


def _project_pinhole(K, R, t, pts):
    cam = pts @ R.T + t
    z = np.maximum(cam[:, 2:3], 1e-6)
    uv = cam[:, :2] / z
    return uv * [K[0, 0], K[1, 1]] + [K[0, 2], K[1, 2]]


def undistort(K, dist, px) -> np.ndarray:
    px = np.asarray(px, float).reshape(-1, 2)
    if not np.any(dist) or len(px) == 0:
        return px.copy()
    out = cv2.undistortPoints(px.reshape(-1, 1, 2), K, dist, P=K,
                              criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-9))
    return out.reshape(-1, 2)


def _line_ends(obs: Observations) -> tuple[np.ndarray, np.ndarray]:
    """The distinct line end points (K, 3) and each row's pair of indices into them (N, 2),
    cached on ``obs`` for as long as its line rows are unchanged."""
    key = (id(obs.line_a), id(obs.line_b), len(obs.line_a))
    cached = getattr(obs, "_ends_cache", None)
    if cached is not None and cached[0] == key:
        return cached[1], cached[2]
    both = np.r_[obs.line_a, obs.line_b]
    ends, inverse = np.unique(both, axis=0, return_inverse=True)
    index = np.c_[inverse[: len(obs.line_a)], inverse[len(obs.line_a):]]
    obs._ends_cache = (key, ends, index)
    return ends, index


def residuals(model: CameraModel, obs: Observations, weighted: bool = True) -> np.ndarray:
    """Pixel residuals (times each row's weight when ``weighted``): signed line distances, arc
    distances, then point x/y differences."""
    K, dist = model.K, model.dist
    R = cv2.Rodrigues(np.asarray(model.rvec, float).reshape(3, 1))[0]
    t = np.asarray(model.tvec, float)
    out = []
    if len(obs.line_px):
        u = undistort(K, dist, obs.line_px)
        if model.offsets:
            line_a, line_b = obs.lines_mm(model.offsets)
            a, b = _project_pinhole(K, R, t, line_a), _project_pinhole(K, R, t, line_b)
        else:
            ends, index = _line_ends(obs)
            ends_px = _project_pinhole(K, R, t, ends)
            a, b = ends_px[index[:, 0]], ends_px[index[:, 1]]
        d = b - a
        n = np.hypot(d[:, 0], d[:, 1]) + 1e-12
        w = obs.line_w if weighted else 1.0
        out.append(w * (d[:, 0] * (u[:, 1] - a[:, 1]) - d[:, 1] * (u[:, 0] - a[:, 0])) / n)
    if len(obs.arc_px):
        u = undistort(K, dist, obs.arc_px)
        # Back-project onto each circle's plane, then measure to the circle's nearest point.
        z = obs.arc_centre[:, 2]
        Kinv = np.linalg.inv(K)
        rays = (np.c_[u, np.ones(len(u))] @ Kinv.T) @ R  # directions in table frame
        c = -R.T @ t
        s = (z - c[2]) / np.where(np.abs(rays[:, 2]) < 1e-12, 1e-12, rays[:, 2])
        p = c + s[:, None] * rays
        v = p[:, :2] - obs.arc_centre[:, :2]
        rho = np.hypot(v[:, 0], v[:, 1]) + 1e-9
        q = obs.arc_centre[:, :2] + v / rho[:, None] * obs.arc_radius[:, None]
        qp = _project_pinhole(K, R, t, np.c_[q, z])
        dist_px = np.hypot(*(qp - u).T)
        out.append((obs.arc_w if weighted else 1.0) * np.sign(rho - obs.arc_radius) * dist_px)
    if len(obs.point_px):
        p, _ = cv2.projectPoints(obs.point_mm, np.asarray(model.rvec, float),
                                 t, K, dist)
        w = np.repeat(obs.point_w, 2) if weighted else 1.0
        out.append(w * (p.reshape(-1, 2) - obs.point_px).ravel())
    return np.concatenate(out) if out else np.zeros(0)


# How far (a factor) the focal length may go from its prior for one residual's worth of cost.
FOCAL_PRIOR = 1.3
# How far (mm) a set of line observations may lie from its modelled line for one residual's
# worth of cost (a single residual: the observations decide).
OFFSET_PRIOR_MM = 3.0
# Tangential terms (OpenCV's p1, p2) a lens is held within, weighted as a tenth of the
# observations: a lens's elements sit square to its axis to about this much, and the terms
# trade with the pose where the table's picture leaves them little to fix.
TANGENTIAL_PRIOR = 0.002


def fit(model: CameraModel, obs: Observations, scale_px: float = 1.5,
        bend_px: float | None = 2.0, shift_frac: float = 0.05,
        max_nfev: int = 60) -> CameraModel:
    """Robust least squares (soft L1 beyond ``scale_px``) over the model's free parameters.

    Radial distortion is held back by a prior: the shift each term makes at the image corner
    counts as one residual of that many px over ``bend_px``, weighted as a tenth of the
    observations, so it only grows where the lines' bending demands it (``bend_px`` None: no
    such prior, the lines alone say how much the lens bends). A free principal point
    is held likewise within about ``shift_frac`` of the image width of the centre.

    A camera looking straight down sees the table the same through a whole family of cameras
    (focal length and height in proportion, k1 with the height squared): the table's picture
    cannot tell them apart, while the balls' centres, a ball's radius above the cloth, land
    millimetres apart between them. There the focal length leans to ``model.f_prior``: a change
    by ``FOCAL_PRIOR`` times counts as one residual of ``scale_px``, weighted as a tenth of the
    observations; a view in perspective fixes the focal length far more firmly."""
    fun = objective(model, obs, scale_px, bend_px, shift_frac)
    res = least_squares(fun, model.vector(), loss="soft_l1", f_scale=scale_px, x_scale="jac",
                        max_nfev=max_nfev, method="trf")
    return model.with_vector(res.x)


def objective(model: CameraModel, obs: Observations, scale_px: float = 1.5,
              bend_px: float | None = 2.0, shift_frac: float = 0.05):
    """The function of the parameter vector (``CameraModel.vector``) that ``fit`` minimises:
    the weighted residuals of ``obs``, then its priors' rows."""
    free_k1 = model.dist_fixed is None and model.fit_k1
    w, h = model.image_size
    half_diag = 0.5 * float(np.hypot(w, h))
    weight = np.sqrt(max(obs.count, 1) / 10.0)

    def fun(v):
        m = model.with_vector(v)
        r = residuals(m, obs)
        if free_k1 and bend_px:
            rc = half_diag / m.f
            r = np.r_[r, weight * m.k1 * rc**3 * m.f / bend_px * scale_px]
            if m.fit_k2:
                r = np.r_[r, weight * m.k2 * rc**5 * m.f / bend_px * scale_px]
        if m.K_fixed is None and m.fit_shift:
            r = np.r_[r, weight * np.asarray(m.shift) / (shift_frac * w) * scale_px]
        if m.K_fixed is None and m.f_prior:
            r = np.r_[r, weight * np.log(m.f / m.f_prior) / np.log(FOCAL_PRIOR) * scale_px]
        if m.fit_offsets:
            r = np.r_[r, [m.offsets[n] / OFFSET_PRIOR_MM * scale_px for n in m.fit_offsets]]
        if m.dist_fixed is None and m.fit_tangential:
            r = np.r_[r, weight * np.asarray(m.tangential) / TANGENTIAL_PRIOR * scale_px]
        return r

    return fun


# -- initial pose from a homography ----------------------------------------------------------
# Orthogonality error by which focal lengths count as equally good: a barrel-distorted overhead
# view's corners (k1 -0.12 at 1080p) leave the true focal length 0.03 off the best one.
FLAT_ORTHO_ERROR = 0.03

def _ortho_error(H: np.ndarray, K: np.ndarray) -> float:
    M = np.linalg.solve(K, H)
    c1, c2 = M[:, 0], M[:, 1]
    n1, n2 = c1 @ c1, c2 @ c2
    return (abs(c1 @ c2) + abs(n1 - n2)) / (n1 + n2)


def focal_from_homography(H: np.ndarray, image_size: tuple[int, int],
                          K_fixed: np.ndarray | None = None) -> tuple[float, float]:
    """Focal length (px) that makes ``H`` (table mm -> px) a rotation's first two columns, and
    how far from orthonormal they stay (0 = exact). Searches 10..150 degrees of horizontal
    field. On a near-flat (fronto-parallel) view all are about equal, within what lens distortion
    of the outline's corners makes of them, and the one nearest a 60 degree lens is returned."""
    w, h = image_size
    if K_fixed is not None:
        return float(K_fixed[0, 0]), _ortho_error(H, K_fixed)
    fs = (w / 2) / np.tan(np.radians(np.linspace(10, 150, 141)) / 2)
    errs = []
    for f in fs:
        K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
        errs.append(_ortho_error(H, K))
    errs = np.array(errs)
    best = float(errs.min())
    flat = errs <= best + FLAT_ORTHO_ERROR
    f60 = (w / 2) / np.tan(np.radians(30))
    if flat.sum() > 20:
        f = float(fs[flat][np.argmin(np.abs(fs[flat] - f60))])
    else:
        f = float(fs[int(np.argmin(errs))])
    return f, best


def pose_from_homography(H: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation vector and translation (mm) of a camera whose table-plane homography is ``H``."""
    M = np.linalg.solve(K, H)
    lam = 1.0 / np.linalg.norm(M[:, 0])
    if (lam * M[:, 2])[2] < 0:
        lam = -lam
    r1, r2, t = lam * M[:, 0], lam * M[:, 1], lam * M[:, 2]
    R = np.c_[r1, r2, np.cross(r1, r2)]
    U, _, Vt = np.linalg.svd(R)
    R = U @ Vt
    if np.linalg.det(R) < 0:
        R = U @ np.diag([1, 1, -1]) @ Vt
    return cv2.Rodrigues(R)[0].ravel(), t


def uncertainty_mm(model: CameraModel, obs: Observations, points_mm: np.ndarray,
                   scale_px: float = 0.75, bend_px: float | None = None,
                   step: float = 1e-5) -> np.ndarray:
    """How far (mm, one per point of ``points_mm`` (N, 3)) the fit may have put each point's
    pixel from where it is on its horizontal plane, from the fit itself linearised about
    ``model``: the parameters' covariance (the residuals' own scale over the observations
    kept, ``objective``'s priors included), plus the disagreement between landmark groups, the
    spread of the fits that each leave one group out (a jackknife) beyond what the residuals'
    scatter alone would make of it (a cushion whose edge is read a few mm off its nose moves
    the table against the painted lines and the other cushions, which no count of points along
    that edge averages away). The observations beyond three ``scale_px`` (the robust loss's
    outliers) are left out."""
    random, groups = _uncertainty_parts(model, obs, points_mm, scale_px, bend_px, step)
    return np.sqrt(random + groups)


def _forward_jacobian(fun, v0: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """``fun(v0)`` and its Jacobian by forward differences of ``step``."""
    f0 = fun(v0)
    jac = np.empty((len(f0), len(v0)))
    for j in range(len(v0)):
        v = v0.copy()
        v[j] += step
        jac[:, j] = (fun(v) - f0) / step
    return f0, jac


def _uncertainty_parts(model, obs, points_mm, scale_px, bend_px, step):
    """The two variances (mm^2, per point) ``uncertainty_mm`` adds: from the parameters'
    covariance, and from the landmark groups' disagreement (0 with fewer than three groups)."""
    fun = objective(model, obs, scale_px, bend_px)
    v0 = model.vector()
    r0, jac = _forward_jacobian(fun, v0, step)
    groups = np.array(list(obs.line_group) + list(obs.arc_group)
                      + [g for g in obs.point_group for _ in range(2)], dtype=object)
    n_obs = len(groups)
    keep = np.r_[np.abs(r0[:n_obs]) < 3.0 * scale_px, np.ones(len(r0) - n_obs, bool)]
    groups = np.r_[groups, np.full(len(r0) - n_obs, "", dtype=object)][keep]
    J, r = jac[keep], r0[keep]
    A = J.T @ J
    n_fit = int((groups != "").sum())
    sigma2 = float(np.sum(r[groups != ""] ** 2) / max(n_fit - len(v0), 1))
    cov = sigma2 * np.linalg.pinv(A)
    # where each point's pixel lands on its plane as the parameters move
    pts = np.asarray(points_mm, float)
    px = model.camera().project(pts)

    def land(v):
        return model.with_vector(v).camera().plane_points(px, pts[:, 2].mean()).ravel()

    G = _forward_jacobian(land, v0, step)[1]
    var = np.einsum("ij,jk,ik->i", G, cov, G).reshape(-1, 2).sum(1)
    names = [g for g in dict.fromkeys(groups) if g]
    jack = np.zeros_like(var)
    if len(names) >= 3:
        # each group's fit left out, linearised: its move of the parameters is a linear map of
        # the residuals, whose spread under the residuals' own scatter alone is taken off
        Ainv = np.linalg.pinv(A)
        maps = []
        for g in names:
            m = groups != g
            Jg = J * m[:, None]
            maps.append(G @ (Ainv @ J.T - np.linalg.pinv(Jg.T @ Jg) @ Jg.T))
        maps = np.array(maps)  # (group, point coordinate, residual)
        moves = maps @ r
        spread = moves - moves.mean(0)
        scatter = maps - maps.mean(0)
        k = (len(names) - 1) / len(names)
        seen = k * (spread**2).reshape(len(names), -1, 2).sum(2).sum(0)
        noise = k * sigma2 * (scatter**2).sum(2).reshape(len(names), -1, 2).sum(2).sum(0)
        jack = np.maximum(seen - noise, 0.0)
    return var, jack


