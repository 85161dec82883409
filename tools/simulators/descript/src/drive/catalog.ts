/** The vocabulary seeded drives are made of: project topics, folders, people, media names. */

export interface Topic {
  title: string;
  /** Sentences the transcripts of this topic's compositions are built from. */
  sentences: readonly string[];
  /** What appears on screen, for visual search on Enterprise drives. */
  visuals: readonly string[];
}

export const TOPICS: readonly Topic[] = [
  {
    title: 'Quarterly update',
    sentences: [
      'Revenue grew faster than we planned this quarter.',
      'The roadmap for next quarter focuses on reliability.',
      'We hired four engineers and two designers.',
      'Customer churn went down for the third quarter in a row.',
      'Thanks to everyone who shipped the billing migration.',
    ],
    visuals: ['chart', 'slides', 'office'],
  },
  {
    title: 'Cooking tips',
    sentences: [
      'Salt the pasta water until it tastes like the sea.',
      'Let the pan get hot before the onions go in.',
      'Rest the dough for at least thirty minutes.',
      'A squeeze of lemon brightens almost any sauce.',
      'Taste as you go and adjust the seasoning.',
    ],
    visuals: ['kitchen', 'pan', 'vegetables'],
  },
  {
    title: 'Product demo',
    sentences: [
      'Open the dashboard and pick a workspace.',
      'The new export button sits in the top right corner.',
      'Invite your team with a single link.',
      'Everything you change is saved automatically.',
      'Search finds words inside every recording.',
    ],
    visuals: ['screen', 'laptop', 'cursor'],
  },
  {
    title: 'Podcast episode',
    sentences: [
      'Welcome back to the show, it is great to have you here.',
      'Our guest today has been building community radio for a decade.',
      'Tell us how the first broadcast came together.',
      'We will be right back after a short break.',
      'Thanks for listening, see you next week.',
    ],
    visuals: ['microphone', 'studio', 'headphones'],
  },
  {
    title: 'Customer interview',
    sentences: [
      'What problem were you trying to solve when you found us?',
      'The onboarding took about an afternoon.',
      'Our editors now publish twice as many videos.',
      'The transcript editing is what sold the team.',
      'We would love better support for long recordings.',
    ],
    visuals: ['interview', 'portrait', 'office'],
  },
  {
    title: 'Weekly standup',
    sentences: [
      'Yesterday I finished the review of the release notes.',
      'Today I am pairing on the flaky integration tests.',
      'Nothing is blocking me at the moment.',
      'The design review moved to Thursday.',
      'Please update the tickets before the demo.',
    ],
    visuals: ['video call', 'whiteboard', 'team'],
  },
  {
    title: 'Travel vlog',
    sentences: [
      'We landed just before sunrise and went straight to the market.',
      'The old town is best explored on foot.',
      'This ferry ride was the highlight of the trip.',
      'Pack lighter than you think you need.',
      'Tomorrow we head up into the mountains.',
    ],
    visuals: ['beach', 'mountains', 'street'],
  },
  {
    title: 'Onboarding course',
    sentences: [
      'In this lesson you will set up your first project.',
      'Each module ends with a short quiz.',
      'Keep your notes next to the video as you follow along.',
      'The next lesson covers permissions and sharing.',
      'Reach out to your mentor if anything is unclear.',
    ],
    visuals: ['slides', 'presenter', 'diagram'],
  },
];

export const PROJECT_VARIANTS: readonly string[] = [
  '',
  '(rough cut)',
  'for Acme',
  'for Globex',
  'final',
  'draft',
  'with captions',
  'teaser',
];

export const FOLDERS: readonly string[] = [
  'Clients/Acme',
  'Clients/Acme/Videos',
  'Clients/Globex',
  'Marketing',
  'Marketing/Social',
  'Podcasts',
  'Podcasts/Season 2',
  'Internal/All hands',
];

export const FIRST_NAMES: readonly string[] = [
  'Ada',
  'Grace',
  'Alan',
  'Katherine',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
];
export const LAST_NAMES: readonly string[] = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Johnson',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
];

export const COMPOSITION_NAMES: readonly string[] = ['Main', 'Rough Cut', 'Social clip', 'Full episode', 'Trailer'];

/** Media file names inside seeded projects, by kind. */
export const MEDIA_NAMES = {
  video: ['Recordings/camera1.mp4', 'Recordings/camera2.mp4', 'screen-recording.mov', 'b-roll.mp4'],
  audio: ['Audio/voiceover.wav', 'Music/background.mp3', 'Audio/interview.m4a'],
  image: ['Images/thumbnail.png', 'Images/logo.png'],
} as const;
