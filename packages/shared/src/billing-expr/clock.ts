/** The calendar fields billing expressions read (`hour("Asia/Shanghai")` …), in an IANA time zone. */
export interface ClockFields {
  hour: number;
  minute: number;
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number;
  month: number;
  day: number;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** Formatters by time zone: the zones come from root's saved expressions, so a handful; bounded all the same. */
const MAX_FORMATTERS = 64;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether `zone` is a time zone this runtime knows ('' is UTC). */
export function isKnownTimeZone(zone: string): boolean {
  if (zone.trim() === '') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone.trim() });
    return true;
  } catch {
    return false;
  }
}

function formatter(zone: string): Intl.DateTimeFormat {
  const name = zone.trim() === '' || !isKnownTimeZone(zone) ? 'UTC' : zone.trim();
  let f = formatters.get(name);
  if (!f) {
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
      month: 'numeric',
      day: 'numeric',
    });
    formatters.set(name, f);
  }
  return f;
}

/** The calendar fields of `epochMs` in `zone` (UTC for '' or a zone the runtime does not know, as new-api does). */
export function clockFields(epochMs: number, zone: string): ClockFields {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(epochMs)) parts[p.type] = p.value;
  return {
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? 'Sun'),
    month: Number(parts.month),
    day: Number(parts.day),
  };
}
