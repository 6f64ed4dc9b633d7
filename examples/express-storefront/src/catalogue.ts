/**
 * The demo store's products. Their categories match the demo's attribution rules
 * (`loyalty demo`): coffee (10) earns 2 points per euro, tea (20) 3, the espresso machine
 * (product 1001) 50 points a unit, everything else 1 point per euro.
 */
export interface Variant {
  id: string;
  label: string;
  price: number;
}

export interface Product {
  id: number;
  name: string;
  description: string;
  categoryIds: number[];
  /** Its colour on the product card (the demo has no photographs). */
  colour: string;
  /** The first is the default. */
  variants: [Variant, ...Variant[]];
}

export const CATEGORIES: Record<number, string> = { 10: "Coffee", 20: "Tea", 30: "Equipment" };

export const PRODUCTS: Product[] = [
  {
    id: 1001,
    name: "Espresso machine",
    description: "A 15-bar pump machine with a steam wand.",
    categoryIds: [30],
    colour: "#3d3d3d",
    variants: [{ id: "std", label: "Standard", price: 249 }],
  },
  {
    id: 1002,
    name: "Ethiopian Yirgacheffe beans",
    description: "Floral and bright, roasted light.",
    categoryIds: [10],
    colour: "#8a5a2b",
    variants: [
      { id: "250g", label: "250 g", price: 12.5 },
      { id: "1kg", label: "1 kg", price: 42 },
    ],
  },
  {
    id: 1003,
    name: "Colombian Huila beans",
    description: "Chocolate and caramel, roasted medium.",
    categoryIds: [10],
    colour: "#5c3a1e",
    variants: [
      { id: "250g", label: "250 g", price: 11 },
      { id: "1kg", label: "1 kg", price: 38 },
    ],
  },
  {
    id: 1004,
    name: "Sencha green tea",
    description: "Steamed Japanese green tea, grassy and sweet.",
    categoryIds: [20],
    colour: "#6b8e23",
    variants: [{ id: "100g", label: "100 g", price: 9 }],
  },
  {
    id: 1005,
    name: "Earl Grey",
    description: "Black tea with bergamot.",
    categoryIds: [20],
    colour: "#4b3b5c",
    variants: [{ id: "100g", label: "100 g", price: 7.5 }],
  },
  {
    id: 1006,
    name: "Stoneware mug",
    description: "Hand-glazed, 300 ml.",
    categoryIds: [30],
    colour: "#b0705a",
    variants: [{ id: "std", label: "Standard", price: 14 }],
  },
];

export function findProduct(id: number): Product | undefined {
  return PRODUCTS.find((product) => product.id === id);
}

export function findVariant(product: Product, variantId: string | undefined): Variant | undefined {
  return variantId === undefined
    ? product.variants[0]
    : product.variants.find((variant) => variant.id === variantId);
}
