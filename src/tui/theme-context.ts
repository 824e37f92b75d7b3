// The theme for the components below the App (colour on or off, the workers' order).
import { createContext, useContext } from 'react';
import { makeChalk } from '../output/colour.ts';
import type { Theme } from './theme.ts';

export const ThemeContext = createContext<Theme>({ colour: false, chalk: makeChalk(0), workers: [] });

export function useTheme(): Theme {
  return useContext(ThemeContext);
}
