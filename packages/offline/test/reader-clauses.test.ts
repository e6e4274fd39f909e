import { describeAnswers } from './answer-cases.js';

// Invented notes about a television series, its actors, a village and its municipality, a pop
// group, a war and some magazines and plants, written for these tests; the expected answers are
// read off the notes.
const notes = [
  {
    id: 'show',
    text: '"Tidewater Lane" is a Veldish comedy-drama television series that aired on VTV from 2011 to 2016. It starred Jonas Ekker and Lise Brandt, and its executive producer was Hanne Moltke.',
  },
  {
    id: 'ekker',
    text: 'Jonas Ekker (born Jonas Peder Ekkersund; 4 April 1975) is a Veldish actor and comedian. He grew up in Stavby and trained at the Kessling Drama School.',
  },
  {
    id: 'moltke',
    text: 'Hanne Moltke is a Veldish television producer. She founded the production company Lindgren Moltke Media in 2004 with Per Lindgren.',
  },
  {
    id: 'stavby',
    text: 'Stavby is a fishing village in the municipality of Orrvik in Eastmere, Veldmark. It had a population of 1,312 in 2015.',
  },
  {
    id: 'orrvik',
    text: 'Orrvik is a municipality in Eastmere county. Its administrative centre is the town of Halsvik.',
  },
  {
    id: 'song',
    text: '"Northern Lights Over Stavby" is a song by the Veldish pop group Seaglass, released as a single in 1998.',
  },
  {
    id: 'seaglass',
    text: 'Seaglass was a Veldish pop group formed in Kessling in 1993. The group consisted of four members. Their lead singer was Ada Lind.',
  },
  {
    id: 'war',
    text: 'The Border War was an armed conflict between Veldmark and Ostria that began in 1921 and ended in 1924 with the Treaty of Marrow.',
  },
  {
    id: 'holm',
    text: 'Ivar Holm (1880–1952) was a Veldish general who commanded the Northern Army during the Border War. He later served as Minister of Defence.',
  },
  {
    id: 'amsel',
    text: 'Rolf Amsel (born 1990) is a Veldish professional footballer who plays as a central defender for Brask United.',
  },
  {
    id: 'brask',
    text: 'Brask United is a football club based in Brask. Nicknamed "the Mariners", the club plays in the Veldish Premier League.',
  },
  { id: 'halsvik', text: 'Halsvik is a port town. The Varn and the Ode meet in Halsvik.' },
  { id: 'quist', text: 'Mara Quist is a Veldish singer-songwriter and fiddler from Ostby.' },
  {
    id: 'review',
    text: 'The Marrow Review is a quarterly literary magazine published in Kessling since 1921.',
  },
  { id: 'northlight', text: 'Northlight is a monthly science magazine founded in 1988 and based in Brask.' },
  {
    id: 'corvina',
    text: 'Corvina, a small genus of flowering plants of the daisy family, grows in the mountains of Ostria.',
  },
  { id: 'paludella', text: 'Paludella is a genus of mosses found in bogs across northern Europe.' },
];

describeAnswers('relation phrases and descriptions', notes, [
  // An adjective before the relation noun belongs to the phrase; the kind asked is what it names.
  ['Which town is the administrative centre of Orrvik?', 'Halsvik'],
  // "includes Stavby": the municipality Stavby is in.
  ['What is the administrative centre of the municipality that includes Stavby?', 'Halsvik'],
  // A note opening with a quoted name is about it: "its executive producer" is the series'.
  ['The executive producer of Tidewater Lane set up which company?', 'Lindgren Moltke Media'],
  // Both verbs of the clause describe the actor.
  [
    'What is the birth name of the actor who starred in Tidewater Lane and grew up in Stavby?',
    'Jonas Peder Ekkersund',
  ],
  // The clause after the relation said which star; the name found says it now.
  ['What is the birth name of the star of Tidewater Lane who grew up in Stavby?', 'Jonas Peder Ekkersund'],
  // "the group behind X" made it.
  ['How many members did the group behind Northern Lights Over Stavby have?', 'four'],
  // The Border War is a war: the context calls it a conflict, a kind above war.
  ['When did the war in which Ivar Holm commanded the Northern Army end?', '1924'],
  // "meet" is the question's verb, not a participle describing the rivers.
  ['Which rivers meet in Halsvik?', 'Varn and the Ode'],
  // "a general who commanded the Northern Army": the sentence's subject commanded it.
  ['What government office did the commander of the Northern Army later hold?', 'Minister of Defence'],
]);

describeAnswers('a body named by its kind and a name', notes, [
  // "the club of X": the name the sentences about X give that the context calls a club.
  ['In which league does the club of Rolf Amsel play?', 'Veldish Premier League'],
  ['What is the nickname of the club of Rolf Amsel?', 'Mariners'],
]);

describeAnswers('yes/no questions about a narrowed kind', notes, [
  ['Are The Marrow Review and Northlight both magazines?', 'yes'],
  // A science magazine is a magazine, but another kind than a literary one.
  ['Are The Marrow Review and Northlight both literary magazines?', 'no'],
  ['Are Corvina and Paludella both genera?', 'yes'],
  // A genus of mosses is no genus of flowering plants.
  ['Are Corvina and Paludella both genera of flowering plants?', 'no'],
  // "singer-songwriter and fiddler": both roles.
  ['Is Mara Quist a fiddler?', 'yes'],
]);
