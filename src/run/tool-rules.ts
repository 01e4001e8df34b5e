// The stack rules the tools' manifests state, applied to a resolved stack before anything runs.
import type { ToolInstance } from '../config/resolve.js';
import { MpiiError } from '../errors.js';
import { builtinManifests } from '../tools/manifest.js';

/** The stack rules of the tools' manifests: a tool that must sit above another (`stack.before`:
 * memcheck would watch overlap's private buffers); a tool's run flag (`run-flags`,
 * --memcheck-fatal) needs the tool in the stack, and sets options of each of its instances. */
export function applyToolRules(tools: ToolInstance[], flags: string[]): void {
  const names = tools.map((t) => t.name);
  for (const t of tools) {
    for (const [other, why] of Object.entries(t.manifest?.before ?? {})) {
      if (names.includes(other) && names.indexOf(t.name) > names.indexOf(other)) {
        throw new MpiiError(`${t.name} comes after ${other} in the tool stack`, `put ${t.name} first (--tools ${t.name},${other}): ${why}`);
      }
    }
  }
  for (const flag of flags) {
    const owner = builtinManifests().find((m) => m.runFlags.some((f) => f.flag === flag))!;
    const sets = owner.runFlags.find((f) => f.flag === flag)!.sets;
    const instances = tools.filter((t) => t.name === owner.name);
    if (!instances.length) throw new MpiiError(`${flag} but ${owner.name} is not in the tool stack`, `add it: --tools ${owner.name} (or drop ${flag})`);
    for (const t of instances) Object.assign(t.options, sets);
  }
}
