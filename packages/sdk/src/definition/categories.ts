/** The one table of catalogue categories: key and the label people read. */
export const CATEGORIES = {
  accounting: 'Accounting & finance',
  analytics: 'Analytics',
  communication: 'Communication',
  crm: 'CRM & sales',
  developer: 'Developer tools',
  files: 'Files & documents',
  hr: 'HR & payroll',
  insurance: 'Insurance',
  marketing: 'Marketing',
  media: 'Media & video',
  productivity: 'Productivity',
  support: 'Customer support',
} as const;

/** A catalogue category key (`ConnectorDefinition.category`), e.g. `media`. */
export type Category = keyof typeof CATEGORIES;

export function isCategory(value: string): value is Category {
  return Object.hasOwn(CATEGORIES, value);
}
