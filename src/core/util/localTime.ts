// The user's own calendar: the day and time where they are, not UTC's. What Baton counts per day and what it tells the
// model about "today" both follow the user's midnight (every window of a machine shares its time zone).

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** The day `date` falls on where the user is, as YYYY-MM-DD. */
export function localDay(date = new Date()): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The date and time as the model is told them: "2026-11-29 (Sunday), 20:05 local time (UTC-08:00)". */
export function localDateText(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const zone = `UTC${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${localDay(date)} (${WEEKDAYS[date.getDay()]}), ${pad(date.getHours())}:${pad(date.getMinutes())} local time (${zone})`;
}

/** "20:05:09" where the user is: a time within a transcript they read. */
export function localClock(date: Date): string {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
