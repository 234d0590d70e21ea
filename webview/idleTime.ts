/** An idle period at least this long has no frame due (the browser grants up to 50 ms when nothing is animating). */
export const LONG_IDLE_MS = 40;
