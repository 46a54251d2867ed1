"""A line search for the strong Wolfe conditions (Nocedal & Wright, Algorithms 3.5 and
3.6), with cubic interpolation (eq. 3.59) to pick trial steps, as used by LBFGS.

Phase one walks forward from the initial trial step, extrapolating with the cubic
through the last two points (kept within [t + 0.01 (t - t_prev), 10 t]), until the
sufficient-decrease condition fails, the loss stops falling, the slope turns
non-negative (an interval holding a Wolfe point is found) or the curvature condition
already holds. Phase two, `zoom`, shrinks that interval by cubic interpolation; a trial
step too close to an end (within a tenth of the interval) twice in a row is pushed a
tenth inside, so the interval keeps shrinking. c1 = 1e-4, c2 = 0.9, at most 25 evaluations.
"""
__all__ = []


def cubic_minimizer(t1, f1, slope1, t2, f2, slope2, bounds=None):
    """The minimizer of the cubic through (t1, f1) and (t2, f2) with slopes slope1 and
    slope2 (eq. 3.59), clamped to `bounds` (default: between t1 and t2); the middle of
    the bounds where the cubic has no minimizer."""
    if bounds is None:
        bounds = (t1, t2) if t1 <= t2 else (t2, t1)
    low, high = bounds
    d1 = slope1 + slope2 - 3 * (f1 - f2) / (t1 - t2)
    discriminant = d1 ** 2 - slope1 * slope2
    if discriminant < 0:
        return (low + high) / 2
    d2 = discriminant.sqrt()
    if t1 <= t2:
        point = t2 - (t2 - t1) * ((slope2 + d2 - d1) / (slope2 - slope1 + 2 * d2))
    else:
        point = t1 - (t1 - t2) * ((slope1 + d2 - d1) / (slope1 - slope2 + 2 * d2))
    return min(max(point, low), high)


def strong_wolfe(evaluate, origin, t, direction, loss, grad, slope, c1=1e-4, c2=0.9,
                 tolerance_change=1e-9, max_ls=25):
    """Search along `direction` from `origin` (loss, flat gradient `grad`, directional
    derivative `slope`) for a step t meeting the strong Wolfe conditions.

    `evaluate(origin, t, direction)` returns the loss and flat gradient at
    origin + t * direction. Returns (loss, grad, t, number of evaluations).
    """
    scale = direction.abs().max()
    start = (0, loss, grad.clone(), slope)
    f_new, g_new = evaluate(origin, t, direction)
    evals = 1
    slope_new = g_new.dot(direction)
    previous = start
    done = False
    trials = 0
    # phase one: find an interval [previous, current] that brackets a Wolfe point
    while trials < max_ls:
        current = (t, f_new, g_new, slope_new)
        if f_new > loss + c1 * t * slope or (trials > 1 and f_new >= previous[1]):
            points = [previous, (t, f_new, g_new.clone(), slope_new)]
            break
        if abs(slope_new) <= -c2 * slope:
            points, done = [current], True
            break
        if slope_new >= 0:
            points = [previous, (t, f_new, g_new.clone(), slope_new)]
            break
        # still descending: extrapolate
        next_t = cubic_minimizer(previous[0], previous[1], previous[3], t, f_new, slope_new,
                                 bounds=(t + 0.01 * (t - previous[0]), t * 10))
        previous = (t, f_new, g_new.clone(), slope_new)
        t = next_t
        f_new, g_new = evaluate(origin, t, direction)
        evals += 1
        slope_new = g_new.dot(direction)
        trials += 1
    if trials == max_ls:
        # out of evaluations while still descending (the slopes are not needed: no zoom)
        points = [(0, loss, grad, None), (t, f_new, g_new, None)]

    low = 0 if points[0][1] <= points[-1][1] else 1
    if not done and trials < max_ls:
        low, trials, evals = _zoom(evaluate, origin, direction, points, low, loss, slope,
                                   scale, c1, c2, tolerance_change, max_ls, trials, evals)
    t, f_new, g_new, _ = points[low]
    return f_new, g_new, t, evals


def _zoom(evaluate, origin, direction, points, low, loss, slope, scale, c1, c2,
          tolerance_change, max_ls, trials, evals):
    """Algorithm 3.6: shrink `points` (two (t, f, grad, slope) tuples, `low` the index of
    the lower loss) in place until one meets the strong Wolfe conditions."""
    high = 1 - low
    insufficient_progress = False
    while trials < max_ls:
        if abs(points[1][0] - points[0][0]) * scale < tolerance_change:
            break  # the interval is too small to matter
        t = cubic_minimizer(points[0][0], points[0][1], points[0][3],
                            points[1][0], points[1][1], points[1][3])
        t_max = max(points[0][0], points[1][0])
        t_min = min(points[0][0], points[1][0])
        margin = 0.1 * (t_max - t_min)
        if min(t_max - t, t - t_min) < margin:
            # too close to an end: accept once, then move a tenth of the interval inside
            if insufficient_progress or t >= t_max or t <= t_min:
                t = t_max - margin if abs(t - t_max) < abs(t - t_min) else t_min + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(origin, t, direction)
        evals += 1
        slope_new = g_new.dot(direction)
        trials += 1
        trial = (t, f_new, g_new.clone(), slope_new)
        if f_new > loss + c1 * t * slope or f_new >= points[low][1]:
            points[high] = trial
            low = 0 if points[0][1] <= points[1][1] else 1
            high = 1 - low
            continue
        if abs(slope_new) <= -c2 * slope:
            points[low] = trial
            return low, trials, evals
        if slope_new * (points[high][0] - points[low][0]) >= 0:
            points[high] = points[low]
        points[low] = trial
    return low, trials, evals
