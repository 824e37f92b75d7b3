// Bus\Queueable's chain properties as serialize() writes them, for every profile that has chains.
import type { PhpValue } from '../php.ts';
import type { ChainProperties } from './types.ts';

/** $chained: a PHP list of the serialize() strings of the jobs still to run ([] when none). */
export function chainedValue(chain: ChainProperties | undefined): PhpValue {
  return { kind: 'array', entries: (chain?.chained ?? []).map((s, i) => [i, s]) };
}

/** $chainCatchCallbacks (8.0+): null, or the [] that Bus::chain() sets without a ->catch(). */
export function chainCatchCallbacksValue(chain: ChainProperties | undefined): PhpValue {
  return chain?.chainCatchCallbacks ? { kind: 'array', entries: [] } : null;
}
