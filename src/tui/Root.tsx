// The picker when no scenario was named, then the App for the chosen one.
import { useState } from 'react';
import { useApp } from 'ink';
import type { ColourLevel } from '../output/colour.ts';
import type { CatalogEntry } from '../scenarios/catalog.ts';
import { App } from './App.tsx';
import type { StepSource } from './live-session.ts';
import { Picker } from './Picker.tsx';

export interface RootProps {
  colour: boolean;
  styleLevel?: ColourLevel;
  /** A session already open (a scenario was named), or null to pick one from `entries`. */
  session: { source: StepSource; scenario: string } | null;
  entries: readonly CatalogEntry[];
  /** Starts a live run of the picked scenario. */
  open: (entry: CatalogEntry) => StepSource;
}

export function Root({ colour, styleLevel, session, entries, open }: RootProps) {
  const { exit } = useApp();
  const [current, setCurrent] = useState(session);
  if (current !== null)
    return <App session={current.source} scenario={current.scenario} colour={colour} styleLevel={styleLevel} />;
  return (
    <Picker
      entries={entries}
      colour={colour}
      onPick={(e) => setCurrent({ source: open(e), scenario: e.name })}
      onQuit={() => exit()}
    />
  );
}
