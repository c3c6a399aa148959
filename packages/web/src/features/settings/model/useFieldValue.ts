import type { OptionKey } from '@tollway/shared';
import { useWatch } from 'react-hook-form';
import { fieldName, type FormValue } from './options';

/** The live form value of an option inside a section. */
export const useFieldValue = (key: OptionKey): FormValue => useWatch({ name: fieldName(key) }) as FormValue;
