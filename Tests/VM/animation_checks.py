"""Animated pictures on a real scanout (called by vmtest.py).

animated.yaml shows one animated GIF of four 700 ms frames, looping. Screendumps
taken every 0.35 s for about 3.5 s must each be exactly one of the four frames
`vitrine render` gives at the middle of each frame's time (never a mix, never
a frame torn between two), and must show every one of the four frames: the
kiosk plays the animation by itself, at its own timing, through page flips.
"""
import os
import time

from vmtest import MAX_CHANNEL_DIFFERENCE, MAX_MEAN_DIFFERENCE, host_render

CONFIG = "animated.yaml"
LOG, PID = "/tmp/animated.log", "/tmp/animated.pid"
FRAME_SECONDS = 0.7
FRAMES = 4


def animation_checks(guest, results, args, mirror, work):
    guest.run(f"vitrine run --config /vm/{CONFIG} > {LOG} 2>&1 & echo $! > {PID}")
    guest.wait_for_log(LOG, "first frame on screen")
    dumps = []
    for index in range(10):
        dumps.append(guest.screendump(f"animated-{index}"))
        time.sleep(FRAME_SECONDS / 2)
    guest.stop_kiosk(PID)
    renders = [host_render(args.vitrine, os.path.join(mirror, CONFIG), FRAME_SECONDS * (frame + 0.5), "800x600", work,
                           f"animated-render-{frame}") for frame in range(FRAMES)]
    matched, unmatched = [], []
    for index, dump in enumerate(dumps):
        best = min(((frame,) + dump.difference(render) for frame, render in enumerate(renders)), key=lambda m: (m[1], m[2]))
        frame, worst, mean = best
        if worst <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE:
            matched.append(frame)
        else:
            unmatched.append(f"dump {index}: nearest frame {frame}, max {worst} mean {mean:.3f}")
    seen = sorted(set(matched))
    distinct_renders = len({tuple(r.rgb[::997]) for r in renders})
    results.check("an animated GIF plays: every screendump is one of its four frames as rendered, and all four show",
                  not unmatched and seen == list(range(FRAMES)) and distinct_renders == FRAMES,
                  f"frames on screen in order: {matched}; renders distinct: {distinct_renders}; " + "; ".join(unmatched))
