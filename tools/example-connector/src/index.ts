export { Item, Job, Order, itemsList, jobsRun, ordersCreate, quotesCreate, refundsCreate, shop } from './connector.js';
export { items, itemsPage, reply, shopAnswer, startShopProvider } from './provider.js';
export type { ShopItem, ShopOAuth, ShopProviderOptions } from './provider.js';
