import type { Prng } from "./Prng.js"

/**
 * The words of the demo world: six niches, each with its category tree, brands, products and
 * the phrases its ads are written with, so generated copy reads like real direct-response ads.
 */

export interface Niche {
  readonly key: string
  readonly label: string
  /** Level 2 name -> level 3 name -> product nouns. */
  readonly tree: Readonly<Record<string, Readonly<Record<string, ReadonlyArray<string>>>>>
  readonly price: readonly [min: number, max: number]
  readonly brandStart: ReadonlyArray<string>
  readonly brandEnd: ReadonlyArray<string>
  readonly benefits: ReadonlyArray<string>
  readonly pains: ReadonlyArray<string>
  readonly personas: ReadonlyArray<string>
  readonly handles: ReadonlyArray<string>
}

export const niches: ReadonlyArray<Niche> = [
  {
    key: "beauty",
    label: "Beauty & Personal Care",
    tree: {
      Skincare: {
        Serums: ["Vitamin C Serum", "Niacinamide Serum", "Retinol Serum", "Hyaluronic Acid Serum"],
        Moisturizers: ["Barrier Repair Cream", "Overnight Gel Cream", "Tinted Moisturizer SPF 30"],
        "Sun Care": ["Mineral Sunscreen SPF 50", "Invisible Sun Stick", "Sunscreen Body Mist"]
      },
      Makeup: {
        Lips: ["Plumping Lip Oil", "Velvet Matte Lipstick", "Tinted Lip Balm"],
        Face: ["Skin Tint Foundation", "Cream Blush Stick", "Setting Powder"],
        Eyes: ["Lengthening Mascara", "Brow Lamination Gel", "Waterproof Eyeliner"]
      },
      "Hair Care": {
        Treatments: ["Bond Repair Mask", "Scalp Growth Serum", "Rosemary Hair Oil"],
        Styling: ["Heatless Curling Ribbon", "Texturizing Spray", "Smoothing Balm"],
        "Shampoo & Conditioner": ["Sulfate-Free Shampoo", "Purple Toning Shampoo", "Deep Conditioner"]
      }
    },
    price: [9, 68],
    brandStart: ["Glow", "Lumi", "Pure", "Velvet", "Dew", "Aura", "Bloom", "Silk", "Radiant", "Petal"],
    brandEnd: ["Lab", "Skin", "Beauty", "Botanics", "& Co", "Essentials", "Apothecary", "Studio"],
    benefits: [
      "visibly brighter skin in 7 days",
      "clearer skin without the irritation",
      "softer fine lines by morning",
      "24-hour hydration that doesn't feel greasy",
      "a glow that lasts through a 12-hour day",
      "thicker-looking hair in 6 weeks"
    ],
    pains: [
      "dull, tired-looking skin",
      "stubborn dark spots",
      "dry patches that makeup clings to",
      "breakouts that won't quit",
      "frizz that ruins every blowout",
      "thinning edges"
    ],
    personas: [
      "women 25-40 with sensitive skin",
      "busy moms with a 2-minute routine",
      "skincare beginners",
      "men who hate complicated routines",
      "brides-to-be"
    ],
    handles: ["glow", "skin", "beauty", "makeup", "selfcare", "skincare"]
  },
  {
    key: "fitness",
    label: "Sports & Outdoors",
    tree: {
      "Home Gym": {
        "Resistance Training": ["Resistance Band Set", "Adjustable Dumbbells", "Kettlebell 16kg"],
        Cardio: ["Folding Treadmill", "Smart Jump Rope", "Walking Pad"],
        Recovery: ["Massage Gun", "Foam Roller", "Compression Sleeves"]
      },
      Activewear: {
        Leggings: ["High-Waist Leggings", "Scrunch Butt Leggings", "Pocket Leggings"],
        Tops: ["Seamless Sports Bra", "Muscle Tank", "Quarter-Zip Pullover"],
        Shoes: ["Cushioned Running Shoes", "Barefoot Trainers", "Lifting Shoes"]
      },
      Nutrition: {
        Protein: ["Whey Isolate Protein", "Plant Protein Powder", "Protein Bars 12-Pack"],
        "Pre-Workout": ["Clean Pre-Workout", "Electrolyte Mix", "Creatine Gummies"],
        Wellness: ["Magnesium Sleep Powder", "Greens Powder", "Collagen Peptides"]
      }
    },
    price: [14, 349],
    brandStart: ["Iron", "Peak", "Core", "Stride", "Flex", "Summit", "Apex", "Pulse", "Forge", "Vital"],
    brandEnd: ["Athletics", "Fit", "Performance", "Supply", "Labs", "Gear", "Nutrition", "Active"],
    benefits: [
      "a full-body workout in 20 minutes",
      "sore muscles gone by morning",
      "leggings that never roll down",
      "more energy without the jitters",
      "your first pull-up in 30 days",
      "a home gym that fits under the bed"
    ],
    pains: [
      "no time for the gym",
      "sore legs after every run",
      "leggings that go see-through",
      "afternoon energy crashes",
      "a plateau you can't break",
      "back pain from sitting all day"
    ],
    personas: [
      "busy professionals who train at home",
      "new runners",
      "moms getting back into shape",
      "lifters over 40",
      "yoga lovers"
    ],
    handles: ["fit", "gym", "lifts", "runs", "strong", "coach"]
  },
  {
    key: "home",
    label: "Home & Kitchen",
    tree: {
      Kitchen: {
        Cookware: ["Nonstick Ceramic Pan Set", "Cast Iron Skillet", "Dutch Oven 5.5qt"],
        Appliances: ["Air Fryer 6qt", "Cold Press Juicer", "Portable Blender"],
        Storage: ["Glass Meal Prep Containers", "Vacuum Seal Jars", "Fridge Organizer Bins"]
      },
      Cleaning: {
        Tools: ["Cordless Spin Scrubber", "Microfiber Mop Kit", "Handheld Steam Cleaner"],
        Laundry: ["Laundry Detergent Sheets", "Wool Dryer Balls", "Stain Remover Pen"],
        Air: ["HEPA Air Purifier", "Quiet Dehumidifier", "Essential Oil Diffuser"]
      },
      Bedding: {
        Sheets: ["Bamboo Sheet Set", "Linen Duvet Cover", "Cooling Pillowcases"],
        Pillows: ["Memory Foam Pillow", "Side Sleeper Pillow", "Body Pillow"],
        Blankets: ["Weighted Blanket 15lb", "Chunky Knit Throw", "Cooling Comforter"]
      }
    },
    price: [12, 260],
    brandStart: ["Nest", "Hearth", "Oak", "Casa", "Haven", "Linen", "Maple", "Cove", "Tidy", "Willow"],
    brandEnd: ["Home", "Living", "House", "Goods", "Kitchen", "& Hearth", "Supply Co", "Studio"],
    benefits: [
      "dinner on the table in 15 minutes",
      "a spotless bathroom without scrubbing",
      "the best sleep you've had in years",
      "a fridge that stays organized",
      "cleaner air in every room",
      "pans that never stick, even without oil"
    ],
    pains: [
      "takeout every night",
      "grout you've given up on",
      "waking up hot at 3am",
      "a counter buried in clutter",
      "allergies that flare up indoors",
      "scratched nonstick pans"
    ],
    personas: ["first-time homeowners", "busy parents", "renters in small apartments", "home cooks", "hot sleepers"],
    handles: ["home", "cleantok", "kitchen", "decor", "organized", "cozy"]
  },
  {
    key: "pets",
    label: "Pet Supplies",
    tree: {
      Dogs: {
        "Dog Food": ["Fresh Dog Food Trial", "Grain-Free Kibble", "Freeze-Dried Toppers"],
        "Dog Toys": ["Indestructible Chew Toy", "Snuffle Mat", "Treat Puzzle Ball"],
        Walking: ["No-Pull Harness", "Hands-Free Leash", "LED Safety Collar"]
      },
      Cats: {
        Litter: ["Self-Cleaning Litter Box", "Tofu Cat Litter", "Litter Mat"],
        "Cat Toys": ["Interactive Laser Toy", "Feather Wand", "Cat Tunnel"],
        Furniture: ["Window Perch", "Cat Tree Tower", "Scratching Post"]
      },
      "Pet Health": {
        Supplements: ["Hip & Joint Chews", "Probiotic Powder", "Calming Treats"],
        Grooming: ["Deshedding Brush", "Pet Hair Remover Roller", "Paw Balm"],
        Dental: ["Dental Chews", "Water Additive", "Finger Toothbrush Kit"]
      }
    },
    price: [8, 189],
    brandStart: ["Paw", "Wag", "Fetch", "Whisker", "Tail", "Bark", "Purr", "Happy", "Good", "Loyal"],
    brandEnd: ["& Co", "Pets", "Club", "Supply", "Kitchen", "Labs", "Friends", "Goods"],
    benefits: [
      "a calmer dog during fireworks",
      "no more litter smell",
      "walks without the pulling",
      "a shinier coat in 4 weeks",
      "a cat that finally leaves the couch alone",
      "fresher breath without brushing"
    ],
    pains: [
      "a dog who pulls on every walk",
      "fur on every surface",
      "a picky eater",
      "stiff joints on a senior dog",
      "scratched furniture",
      "a bored pup who chews everything"
    ],
    personas: ["new puppy parents", "cat owners in apartments", "owners of senior dogs", "multi-pet households", "busy dog parents"],
    handles: ["dogsof", "cats", "pup", "paws", "petlife", "rescue"]
  },
  {
    key: "fashion",
    label: "Womenswear & Menswear",
    tree: {
      Womenswear: {
        Dresses: ["Linen Midi Dress", "Wrap Maxi Dress", "Ribbed Bodycon Dress"],
        Tops: ["Oversized Button-Down", "Square Neck Bodysuit", "Cropped Cardigan"],
        Bottoms: ["Wide Leg Trousers", "High-Rise Mom Jeans", "Pleated Tennis Skirt"]
      },
      Menswear: {
        Shirts: ["Stretch Oxford Shirt", "Heavyweight Tee 3-Pack", "Merino Polo"],
        Pants: ["Tech Chino", "Relaxed Cargo Pant", "Performance Jogger"],
        Outerwear: ["Quilted Shacket", "Packable Puffer", "Waxed Field Jacket"]
      },
      Accessories: {
        Bags: ["Leather Tote", "Crossbody Sling", "Weekender Duffel"],
        Jewelry: ["Gold Huggie Hoops", "Layered Necklace Set", "Signet Ring"],
        Eyewear: ["Polarized Sunglasses", "Blue Light Glasses", "Cat-Eye Frames"]
      }
    },
    price: [18, 220],
    brandStart: ["Ever", "North", "Mode", "Thread", "Loom", "Vale", "Atlas", "Muse", "Ember", "Harbor"],
    brandEnd: ["& Thread", "Studio", "Label", "Collective", "Wear", "Atelier", "Goods", "Supply"],
    benefits: [
      "pants that look tailored straight out of the box",
      "a dress you can wear from desk to dinner",
      "jewelry that won't turn your skin green",
      "a tee that keeps its shape after 50 washes",
      "a capsule wardrobe in 10 pieces",
      "a jacket that packs into its own pocket"
    ],
    pains: [
      "jeans that gap at the waist",
      "a closet full of nothing to wear",
      "shirts that wrinkle by noon",
      "tees that shrink after one wash",
      "fast fashion that falls apart",
      "bags that hurt your shoulder"
    ],
    personas: ["petite women", "men who hate shopping", "office workers going hybrid", "curvy shoppers", "minimalists"],
    handles: ["style", "ootd", "fits", "wardrobe", "closet", "outfits"]
  },
  {
    key: "gadgets",
    label: "Electronics & Gadgets",
    tree: {
      Audio: {
        Earbuds: ["Noise Cancelling Earbuds", "Open-Ear Sport Earbuds", "Sleep Earbuds"],
        Speakers: ["Waterproof Bluetooth Speaker", "Smart Speaker Mini", "Party Speaker"],
        Headphones: ["Over-Ear ANC Headphones", "Kids Headphones", "Bone Conduction Headphones"]
      },
      "Phone Accessories": {
        Charging: ["3-in-1 Wireless Charger", "Magnetic Power Bank", "65W GaN Charger"],
        Cases: ["MagSafe Clear Case", "Wallet Phone Case", "Rugged Case"],
        Mounts: ["Magnetic Car Mount", "Tripod Selfie Stick", "Desk Phone Stand"]
      },
      "Smart Home": {
        Lighting: ["Smart LED Strip", "Sunrise Alarm Lamp", "Motion Night Lights"],
        Security: ["Video Doorbell", "Indoor Pet Camera", "Smart Lock"],
        Trackers: ["Bluetooth Item Tracker 4-Pack", "GPS Pet Tracker", "Smart Luggage Tag"]
      }
    },
    price: [15, 299],
    brandStart: ["Volt", "Nova", "Echo", "Orbit", "Pixel", "Quantum", "Spark", "Halo", "Zen", "Bolt"],
    brandEnd: ["Tech", "Labs", "Audio", "Gear", "Devices", "Electronics", "Works", "One"],
    benefits: [
      "a full charge in 30 minutes",
      "silence on every flight",
      "never losing your keys again",
      "a porch you can check from anywhere",
      "waking up gently without an alarm blaring",
      "one charger for all your devices"
    ],
    pains: [
      "a phone that dies by 3pm",
      "a drawer full of tangled cables",
      "losing your keys every morning",
      "packages stolen off the porch",
      "noisy neighbors",
      "earbuds that fall out mid-run"
    ],
    personas: ["frequent travelers", "remote workers", "students", "new homeowners", "runners"],
    handles: ["tech", "gadgets", "setup", "unboxing", "review", "smarthome"]
  }
]

const hooks = [
  "Tired of {pain}?",
  "I tried the {product} for 30 days. Here's what happened.",
  "Stop scrolling if you deal with {pain}.",
  "POV: you finally fixed {pain}.",
  "This {product} sold out 3 times. Here's why.",
  "The {product} everyone keeps asking me about.",
  "3 reasons {persona} are switching to {brand}.",
  "Nobody talks about {pain}. So we fixed it.",
  "Before you buy another {product}, watch this.",
  "Our founder was sick of {pain}."
]

const angles = [
  "before and after results",
  "expert approved",
  "limited-time discount",
  "social proof: thousands of reviews",
  "founder story",
  "ingredient or material story",
  "comparison with the leading brand",
  "problem-agitate-solve",
  "unboxing",
  "routine or day-in-the-life"
]

const proofs = [
  "Over {n} five-star reviews.",
  "Loved by {n} customers.",
  "Rated {rating}/5 by real customers.",
  "Backed by a 60-day money-back guarantee.",
  "As seen on TikTok and in Vogue.",
  "Tested by independent labs."
]

const offers = [
  "Get {pct}% off today only.",
  "Free shipping on orders over ${amount}.",
  "Buy 2, get 1 free this week.",
  "Bundle and save {pct}%.",
  "New customers save {pct}% with code HELLO{pct}.",
  "Try it risk-free for 30 days."
]

const ctas: ReadonlyArray<readonly [text: string, type: string]> = [
  ["Shop now", "SHOP_NOW"],
  ["Learn more", "LEARN_MORE"],
  ["Get offer", "GET_OFFER"],
  ["Order now", "ORDER_NOW"],
  ["Sign up", "SIGN_UP"],
  ["Watch more", "WATCH_MORE"]
]

const fill = (template: string, values: Readonly<Record<string, string>>) =>
  template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? "")

export interface AdCopy {
  readonly headline: string
  readonly body: string
  readonly description: string
  readonly cta: { readonly text: string; readonly type: string }
  readonly hook: string
  readonly angle: string
  readonly persona: string
}

const brandQualifiers = ["", " Naturals", " Paris", " NYC", " London", " Pro", " Studio", " Kids", " Organics", " Club"]

/**
 * The brand name of the `index`-th brand of a niche: distinct for the first
 * starts x ends x qualifiers brands, numbered after that.
 */
export const brandName = (niche: Niche, index: number) => {
  const starts = niche.brandStart.length
  const ends = niche.brandEnd.length
  const start = niche.brandStart[index % starts]!
  const end = niche.brandEnd[Math.floor(index / starts) % ends]!
  const round = Math.floor(index / (starts * ends))
  const qualifier = brandQualifiers[round % brandQualifiers.length]!
  const number = round >= brandQualifiers.length ? ` ${Math.floor(round / brandQualifiers.length) + 1}` : ""
  return `${start}${end.startsWith("&") ? " " : ""}${end}${qualifier}${number}`
}

/** All level 3 categories of a niche with their products. */
export const leaves = (niche: Niche) =>
  Object.entries(niche.tree).flatMap(([level2, children]) =>
    Object.entries(children).map(([level3, products]) => ({ level2, level3, products }))
  )

/** Direct-response copy for one ad: hook, body with benefit, proof and offer, headline, CTA. */
export const adCopy = (niche: Niche, brand: string, product: string, rng: Prng): AdCopy => {
  const values = {
    pain: rng.pick(niche.pains),
    product,
    brand,
    persona: rng.pick(niche.personas),
    n: rng.pick(["2,000", "10,000", "25,000", "50,000", "120,000"]),
    rating: rng.pick(["4.7", "4.8", "4.9"]),
    pct: String(rng.pick([10, 15, 20, 25, 30, 40])),
    amount: String(rng.pick([35, 50, 75]))
  }
  const hook = fill(rng.pick(hooks), values)
  const benefit = rng.pick(niche.benefits)
  const body = [
    hook,
    `Meet the ${product} from ${brand}: ${benefit}.`,
    fill(rng.pick(proofs), values),
    fill(rng.pick(offers), values)
  ].join(" ")
  const [text, type] = rng.pick(ctas)
  return {
    headline: rng.pick([`${product}: ${benefit}`, `The ${product} that actually works`, `${brand} ${product}`, `${benefit[0]!.toUpperCase()}${benefit.slice(1)}`]).slice(0, 500),
    body,
    description: fill(rng.pick(offers), values),
    cta: { text, type },
    hook,
    angle: rng.pick(angles),
    persona: values.persona
  }
}

/** A short-video description as creators write them. */
export const videoCaption = (niche: Niche, product: string, rng: Prng) =>
  rng.pick([
    `my honest review of the ${product} 👀`,
    `${product} restock!! run don't walk`,
    `this ${product} changed everything for ${rng.pick(niche.pains).replace(/^a /, "my ")}`,
    `unboxing the viral ${product} #${niche.key} #tiktokmademebuyit`,
    `day 7 using the ${product}. results at the end`,
    `found it: the ${product} everyone's talking about`
  ])

export const slug = (text: string) => text.toLowerCase().replace(/&/g, "and").replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")
