/** A catalogue category key (`ConnectorDefinition.category`), e.g. `media`. */
export type Category =
  | 'accounting'
  | 'analytics'
  | 'communication'
  | 'crm'
  | 'developer'
  | 'files'
  | 'hr'
  | 'insurance'
  | 'marketing'
  | 'media'
  | 'productivity'
  | 'support';

/** The one table of catalogue categories: each key (all of them, checked) and the label people read. */
export const CATEGORIES: Readonly<Record<Category, string>> = {
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
};

export function isCategory(value: string): value is Category {
  return Object.hasOwn(CATEGORIES, value);
}
