// The entry kinds' lab commands, as the lab takes them: each kind with one (ENTRY_KINDS[k].lab)
// gives a command named after it, parsed into that kind's own command and written as its entry.
// The lab's command line adds its commands that are not one entry (worker, set, laravel, the clock).
import type { EntryKindName } from './index.ts';
import { ENTRY_KINDS } from './index.ts';
import type { LabEntryCommand } from './kind.ts';
import type { LabCommandSpec } from './lab-args.ts';

type LabOf<K extends EntryKindName> = (typeof ENTRY_KINDS)[K]['lab'];

/** What the kinds' lab commands parse into: `{ kind: 'dispatch', job, ... }`, `{ kind: 'stop', worker }`, ... */
export type EntryLabCommand = {
  [K in EntryKindName]: LabOf<K> extends LabEntryCommand<infer C> ? C : never;
}[EntryKindName];

/** A kind's lab command, with the name it is typed by (the kind's). */
export type EntryCommandSpec = LabCommandSpec & LabEntryCommand<EntryLabCommand>;

/** The kinds' lab commands, in the order of ENTRY_KINDS. */
export const ENTRY_COMMANDS: readonly EntryCommandSpec[] = (Object.keys(ENTRY_KINDS) as EntryKindName[]).flatMap(
  (kind) => {
    const lab = ENTRY_KINDS[kind].lab as LabEntryCommand<EntryLabCommand> | null;
    return lab === null ? [] : [{ name: kind, ...lab }];
  },
);

/** Whether a command is a kind's (it writes one entry of that kind), not one of the lab's own. */
export function isEntryCommand(cmd: { kind: string }): cmd is EntryLabCommand {
  return ENTRY_COMMANDS.some((c) => c.name === cmd.kind);
}

/** The lab command of the kind a parsed command is of. */
export function entryCommandOf(cmd: EntryLabCommand): LabEntryCommand<EntryLabCommand> {
  // TypeScript cannot correlate ENTRY_KINDS[cmd.kind].lab with cmd; the kind's module parsed cmd.
  return ENTRY_KINDS[cmd.kind].lab as LabEntryCommand<EntryLabCommand>;
}
