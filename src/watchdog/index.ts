export { arm, sliceFor, MAX_SLICE_MS, Watchdog, type EpochClock, type WatchdogClock } from './watchdog.js';
