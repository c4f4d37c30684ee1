/**
 * How `simulate` and `demo` let V8 grow its heap. V8 sizes the old generation after each full GC as
 * the live heap times a factor it picks from how fast the program allocates against how fast GC
 * runs (heap/memory-controller.cc, MemoryController::DynamicGrowingFactor, up to 4× on a machine
 * with memory to spare). A simulation allocates quickly and keeps most of what it allocates for the
 * whole run (the store, every informer's cache), so the factor sat near its maximum: at the end of
 * 1/10 of the scale envelope the live heap was ~160 MB and the heap 360 MB, all of it resident.
 * V8's own `--heap-growing-percent` fixes the factor instead; at 50 (1.5×) the scale envelope's
 * peak RSS falls by a fifth to a quarter for a few percent more GC time (docs/bench/sim.md).
 *
 * The flag is read at each heap-limit computation, so setting it at run time works (measured: the
 * same peak RSS as the flag on node's command line). A value given on node's command line is left
 * alone.
 */
import v8 from 'node:v8';

/** the old generation grows to live × (1 + this / 100) between full GCs */
const SIM_HEAP_GROWING_PERCENT = 50;

export function limitHeapGrowth(): void {
  // node takes V8 flags like this one on its command line only (not from NODE_OPTIONS)
  const given = process.execArgv.some((a) => /heap[-_]growing[-_]percent/.test(a));
  if (!given) v8.setFlagsFromString(`--heap-growing-percent=${SIM_HEAP_GROWING_PERCENT}`);
}
