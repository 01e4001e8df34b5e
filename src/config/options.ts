// A tool's options: their types, a schema's description in words, and the checking and
// conversion of a value given for one (from YAML, --tools, a run flag).

export type OptionValue = string | number | boolean;
export const OPTION_TYPES = ['int', 'number', 'bool', 'string', 'enum'] as const;
export type OptionType = (typeof OPTION_TYPES)[number];

export interface OptionSchema {
  type: OptionType;
  default?: OptionValue;
  min?: number;
  max?: number;
  /** enum only */
  values?: string[];
  description?: string;
}

/** Short human description of an option schema, e.g. "int ≥ 1, default 15". */
export function describeSchema(s: OptionSchema): string {
  let t: string = s.type;
  if (s.type === 'enum') t = `one of ${(s.values ?? []).join('|')}`;
  if (s.min !== undefined && s.max !== undefined) t += ` in [${s.min}, ${s.max}]`;
  else if (s.min !== undefined) t += ` ≥ ${s.min}`;
  else if (s.max !== undefined) t += ` ≤ ${s.max}`;
  if (s.default !== undefined) t += `, default ${String(s.default)}`;
  return t;
}

const TRUE_WORDS = ['true', 'yes', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'off', '0'];

/**
 * Check and convert one option value against its schema.
 * Strings (from --tools) are parsed; typed YAML values are checked.
 */
export function coerceOption(s: OptionSchema, v: OptionValue): { ok: true; value: OptionValue } | { ok: false; reason: string } {
  const shown = typeof v === 'string' ? `'${v}'` : String(v);
  const range = (n: number): { ok: true; value: OptionValue } | { ok: false; reason: string } => {
    if (s.min !== undefined && n < s.min) return { ok: false, reason: `must be ≥ ${s.min}, got ${n}` };
    if (s.max !== undefined && n > s.max) return { ok: false, reason: `must be ≤ ${s.max}, got ${n}` };
    return { ok: true, value: n };
  };
  switch (s.type) {
    case 'int': {
      let n: number | undefined;
      if (typeof v === 'number') n = v;
      else if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) n = Number(v);
      if (n === undefined || !Number.isSafeInteger(n)) return { ok: false, reason: `expected an integer, got ${shown}` };
      return range(n);
    }
    case 'number': {
      let n: number | undefined;
      if (typeof v === 'number') n = v;
      else if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) n = Number(v);
      if (n === undefined || !Number.isFinite(n)) return { ok: false, reason: `expected a number, got ${shown}` };
      return range(n);
    }
    case 'bool': {
      if (typeof v === 'boolean') return { ok: true, value: v };
      const w = String(v).trim().toLowerCase();
      if (TRUE_WORDS.includes(w)) return { ok: true, value: true };
      if (FALSE_WORDS.includes(w)) return { ok: true, value: false };
      return { ok: false, reason: `expected true or false, got ${shown}` };
    }
    case 'string':
      return { ok: true, value: String(v) };
    case 'enum': {
      const w = String(v);
      const values = s.values ?? [];
      if (values.includes(w)) return { ok: true, value: w };
      return { ok: false, reason: `must be one of ${values.join(', ')}; got ${shown}` };
    }
  }
}
