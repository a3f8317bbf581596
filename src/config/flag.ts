// One declaration per setting (name, argument, default, help, parser), and what comes from a table
// of them: node:util parseArgs options, the TUSK_* lookup, the config file's keys, --help and the
// README's table. The name is the flag (--name), the config-file key (name or name_with_underscores)
// and, as TUSK_NAME, the environment variable.

import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parse as parseToml } from 'smol-toml';

interface FlagText {
  /** the argument's placeholder (--listen HOST:PORT); none for a switch */
  arg?: string;
  /** a list: the flag may repeat, and each value may hold several, comma-separated */
  multiple?: boolean;
  /** a switch: present means true (TUSK_NAME and the file key take true/false) */
  switch?: boolean;
  /** the default as --help and the README name it, when there is no default text or it reads better (README markdown) */
  shown?: string;
  /** --help's text */
  help: string;
  /** the README table's text (markdown), when longer than --help's */
  doc?: string;
  /** 'env': only a TUSK_* variable (a secret: never a flag, seen by ps, or a file key); 'no-file': not a config-file key */
  only?: 'env' | 'no-file';
}

/** A declared setting; `parse` turns its text into its value or throws an error naming it. */
export interface Flag<T> extends FlagText {
  default?: string;
  parse: (value: string | undefined) => T;
}

/** A setting with a default text: its parser always gets text. */
export function flag<T>(spec: FlagText & { default: string; parse: (value: string) => T }): Flag<T>;
/** A setting without one: unset (or empty) reaches the parser as undefined. */
export function flag<T>(spec: FlagText & { default?: undefined; parse: (value: string | undefined) => T }): Flag<T>;
export function flag<T>(spec: FlagText & { default?: string; parse: (value: never) => T }): Flag<T> {
  return spec as Flag<T>;
}

/** Parsers of settings taken as they are written. */
export const text = (value: string): string => value;
export const optionalText = (value: string | undefined): string | undefined => value;

export type Flags = Record<string, Flag<unknown>>;
export type FlagValues<F extends Flags> = { [K in keyof F]: F[K] extends Flag<infer T> ? T : never };

/** A titled group of --help (and of the README table, in the same order). */
export interface FlagSection<F extends Flags = Flags> {
  title?: string;
  flags: F;
}

export function envName(setting: string): string {
  return `TUSK_${setting.toUpperCase().replace(/-/g, '_')}`;
}

export function parseArgsOptions(flags: Flags): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, f] of Object.entries(flags)) {
    if (f.only === 'env') continue;
    options[name] = f.switch ? { type: 'boolean' } : f.multiple ? { type: 'string', multiple: true } : { type: 'string' };
  }
  return options;
}

/** A config file's settings as flag text; TOML by default, JSON for *.json. Keys as the flags (or with '_'). */
export function readConfigFile(path: string, flags: Flags): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`config: cannot read ${path}: ${(e as Error).message}`);
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = path.endsWith('.json') ? (JSON.parse(text) as Record<string, unknown>) : parseToml(text);
  } catch (e) {
    throw new Error(`config: ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'TOML'}: ${(e as Error).message}`);
  }
  const out: Record<string, string> = {};
  for (const [rawKey, value] of Object.entries(parsed)) {
    const key = rawKey.replace(/_/g, '-');
    if (!Object.hasOwn(flags, key) || flags[key]!.only) throw new Error(`config: ${path}: unknown setting '${rawKey}' (see tusk serve --help)`);
    const items = Array.isArray(value) ? value : [value];
    if (!items.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
      throw new Error(`config: ${path}: '${rawKey}' must be a string, number, boolean or a list of them`);
    }
    out[key] = items.map(String).join(',');
  }
  return out;
}

/**
 * Every setting's value: flags (`argv`) over TUSK_* (`env`) over the config file (the `fileFlag`
 * setting's value, when given) over the defaults, each through its parser, in declaration order.
 */
export function readFlags<F extends Flags>(flags: F, argv: string[], env: NodeJS.ProcessEnv, command: string, fileFlag?: keyof F & string): FlagValues<F> {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: parseArgsOptions(flags), strict: true }).values as typeof values;
  } catch (e) {
    throw new Error(`${(e as Error).message.split('. ')[0]} (see ${command} --help)`);
  }
  const raw = (name: string, file: Record<string, string>): string | undefined => {
    const f = flags[name]!;
    if (f.only === 'env') return env[envName(name)];
    const given = values[name];
    if (given === true) return 'true';
    if (typeof given === 'string') return given;
    if (Array.isArray(given) && given.length) return given.join(',');
    return env[envName(name)] ?? file[name];
  };
  const filePath = fileFlag && raw(fileFlag, {});
  const file = filePath ? readConfigFile(filePath, flags) : {};
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(flags)) {
    const text = raw(name, file) ?? f.default ?? '';
    out[name] = f.parse(f.default === undefined && text === '' ? undefined : text);
  }
  return out as FlagValues<F>;
}

function flagLabel(name: string, f: Flag<unknown>): string {
  return f.arg ? `--${name} ${f.arg}` : `--${name}`;
}

const HELP_INDENT = 27;
const HELP_WIDTH = 104;

/** Words of `text` in lines of at most `width` characters after `indent` spaces. */
function wrap(text: string, indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** --help's lines for the sections: each flag, its text, its variable and its default. */
export function helpText(sections: FlagSection[]): string {
  const out: string[] = [];
  for (const section of sections) {
    out.push('');
    if (section.title) out.push(`  ${section.title}`);
    for (const [name, f] of Object.entries(section.flags)) {
      const shown = (f.shown ?? f.default)?.replace(/`/g, '');
      const where = [f.only === 'env' ? undefined : envName(name), f.switch || shown === undefined ? undefined : `default ${shown}`].filter(Boolean);
      const text = wrap(where.length ? `${f.help} (${where.join(', ')})` : f.help, HELP_INDENT, HELP_WIDTH);
      const label = f.only === 'env' ? envName(name) : flagLabel(name, f);
      if (label.length + 2 < HELP_INDENT - 1) {
        out.push(`  ${label.padEnd(HELP_INDENT - 2)}${text[0]}`);
      } else out.push(`  ${label}`, `${' '.repeat(HELP_INDENT)}${text[0]}`);
      for (const rest of text.slice(1)) out.push(`${' '.repeat(HELP_INDENT)}${rest}`);
    }
  }
  return out.join('\n');
}

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** The README's table: one row per setting, in the sections' order. */
export function markdownTable(sections: FlagSection[]): string {
  const rows = ['| flag | environment | default | meaning |', '|---|---|---|---|'];
  for (const section of sections) {
    for (const [name, f] of Object.entries(section.flags)) {
      const label = f.only === 'env' ? '' : `\`${cell(flagLabel(name, f))}\``;
      const shown = f.shown ?? (f.default !== undefined ? `\`${f.default}\`` : f.switch ? 'false' : 'none');
      rows.push(`| ${label} | \`${envName(name)}\` | ${cell(shown)} | ${cell(f.doc ?? f.help)} |`);
    }
  }
  return rows.join('\n');
}

export const TABLE_BEGIN = '<!-- flags:begin: generated from src/config/flags*.ts by `node scripts/flags-table.mjs --write` -->';
export const TABLE_END = '<!-- flags:end -->';

/** `readme` with the text between the table markers replaced by `table`. */
export function withFlagsTable(readme: string, table: string): string {
  const begin = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`README: no ${TABLE_BEGIN} … ${TABLE_END} section`);
  return `${readme.slice(0, begin + TABLE_BEGIN.length)}\n${table}\n${readme.slice(end)}`;
}
