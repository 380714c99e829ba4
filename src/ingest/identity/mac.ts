const MAC = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;

/**
 * Canonical MAC spelling, lower case and colon-separated (`BC-24-11-…` and `bc:24:11:…` agree).
 * Null for anything else, and for addresses that identify nothing: all zeros, broadcast, multicast.
 */
export function normaliseMac(value: string): string | null {
  const text = value.trim().replace(/-/g, ':').toLowerCase();
  if (!MAC.test(text)) return null;
  if (text === '00:00:00:00:00:00' || text === 'ff:ff:ff:ff:ff:ff') return null;
  // Group bit set (first octet odd): a multicast address, shared by design.
  if (parseInt(text.slice(0, 2), 16) & 1) return null;
  return text;
}
