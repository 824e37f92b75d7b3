// The picker when no scenario was named, then the App for the chosen one; `b` in the App turns the
// scenario, up to the step shown, into a lab.
import { useState } from 'react';
import { useApp } from 'ink';
import type { ColourLevel } from '../output/colour.ts';
import type { CatalogEntry } from '../scenarios/catalog.ts';
import { App } from './App.tsx';
import { LabSession } from './lab-session.ts';
import type { LiveSession, StepSource } from './live-session.ts';
import { Picker } from './Picker.tsx';

export interface OpenSession {
  source: StepSource;
  scenario: string;
  /** The scenario file, for branching into the lab. */
  file?: string;
}

export interface RootProps {
  colour: boolean;
  styleLevel?: ColourLevel;
  /** A session already open (a scenario was named, or the lab), or null to pick one from `entries`. */
  session: OpenSession | null;
  entries: readonly CatalogEntry[];
  /** Starts a live run of the picked scenario. */
  open: (entry: CatalogEntry) => StepSource;
  /** Stops `from` and opens its scenario as a lab, replayed to `step`. */
  branch?: (file: string, name: string, from: LiveSession, step: number) => Promise<LabSession>;
}

export function Root({ colour, styleLevel, session, entries, open, branch }: RootProps) {
  const { exit } = useApp();
  const [current, setCurrent] = useState(session);
  if (current !== null) {
    const { source, scenario, file } = current;
    const lab = source instanceof LabSession ? source : undefined;
    const canBranch = lab === undefined && file !== undefined && branch !== undefined && 'stop' in source;
    return (
      <App
        key={lab === undefined ? 'replay' : 'lab'}
        session={source}
        scenario={scenario}
        colour={colour}
        styleLevel={styleLevel}
        lab={lab}
        onBranch={
          canBranch
            ? (step) => {
                void branch(file, scenario, source as LiveSession, step).then((l) =>
                  setCurrent({ source: l, scenario: `${scenario} (lab)` }),
                );
              }
            : undefined
        }
      />
    );
  }
  return (
    <Picker
      entries={entries}
      colour={colour}
      onPick={(e) => setCurrent({ source: open(e), scenario: e.name, file: e.file })}
      onQuit={() => exit()}
    />
  );
}
