export { arm, Watchdog, type EpochClock, type WatchdogClock } from './watchdog.js';
