/**
 * Nationality adjectives and the country (or people) each stands for, lower-case: what lets "an
 * American director" and "born in the United States" say the same country. General knowledge, not
 * a gazetteer: one entry per sovereign state (plus a few historical and constituent ones).
 */
export const DEMONYMS: Readonly<Record<string, string>> = Object.fromEntries(
  `afghan:afghanistan albanian:albania algerian:algeria american:united states andorran:andorra
  angolan:angola argentine:argentina argentinian:argentina armenian:armenia australian:australia
  austrian:austria azerbaijani:azerbaijan bahamian:bahamas bahraini:bahrain bangladeshi:bangladesh
  barbadian:barbados belarusian:belarus belgian:belgium belizean:belize beninese:benin bhutanese:bhutan
  bolivian:bolivia bosnian:bosnia botswanan:botswana brazilian:brazil british:united kingdom
  english:united kingdom scottish:united kingdom welsh:united kingdom bruneian:brunei bulgarian:bulgaria
  burmese:myanmar burundian:burundi cambodian:cambodia cameroonian:cameroon canadian:canada
  chadian:chad chilean:chile chinese:china colombian:colombia congolese:congo croatian:croatia
  cuban:cuba cypriot:cyprus czech:czech republic czechoslovak:czechoslovakia danish:denmark
  dominican:dominican republic dutch:netherlands ecuadorian:ecuador egyptian:egypt salvadoran:el salvador
  eritrean:eritrea estonian:estonia ethiopian:ethiopia fijian:fiji filipino:philippines finnish:finland
  french:france gabonese:gabon gambian:gambia georgian:georgia german:germany ghanaian:ghana greek:greece
  guatemalan:guatemala guinean:guinea guyanese:guyana haitian:haiti honduran:honduras hungarian:hungary
  icelandic:iceland indian:india indonesian:indonesia iranian:iran persian:iran iraqi:iraq irish:ireland
  israeli:israel italian:italy ivorian:ivory coast jamaican:jamaica japanese:japan jordanian:jordan
  kazakh:kazakhstan kenyan:kenya korean:korea kosovar:kosovo kuwaiti:kuwait kyrgyz:kyrgyzstan lao:laos
  laotian:laos latvian:latvia lebanese:lebanon liberian:liberia libyan:libya lithuanian:lithuania
  luxembourgish:luxembourg macedonian:macedonia malagasy:madagascar malawian:malawi malaysian:malaysia
  maldivian:maldives malian:mali maltese:malta mauritanian:mauritania mauritian:mauritius mexican:mexico
  moldovan:moldova monegasque:monaco mongolian:mongolia montenegrin:montenegro moroccan:morocco
  mozambican:mozambique namibian:namibia nepalese:nepal nepali:nepal zealander:new zealand
  nicaraguan:nicaragua nigerien:niger nigerian:nigeria norwegian:norway omani:oman pakistani:pakistan
  palestinian:palestine panamanian:panama paraguayan:paraguay peruvian:peru polish:poland
  portuguese:portugal qatari:qatar romanian:romania russian:russia rwandan:rwanda saudi:saudi arabia
  senegalese:senegal serbian:serbia singaporean:singapore slovak:slovakia slovenian:slovenia
  slovene:slovenia somali:somalia spanish:spain lankan:sri lanka sudanese:sudan
  surinamese:suriname swedish:sweden swiss:switzerland syrian:syria taiwanese:taiwan tajik:tajikistan
  tanzanian:tanzania thai:thailand siamese:thailand togolese:togo tongan:tonga trinidadian:trinidad
  tunisian:tunisia turkish:turkey ottoman:turkey turkmen:turkmenistan ugandan:uganda ukrainian:ukraine
  uruguayan:uruguay uzbek:uzbekistan venezuelan:venezuela vietnamese:vietnam yemeni:yemen
  zambian:zambia zimbabwean:zimbabwe soviet:soviet union yugoslav:yugoslavia yugoslavian:yugoslavia
  prussian:prussia bavarian:germany quebecois:canada
  antiguan:antigua and barbuda burkinabe:burkina faso cape_verdean:cape verde central_african:central african republic
  comorian:comoros costa_rican:costa rica djiboutian:djibouti equatoguinean:equatorial guinea swazi:eswatini
  grenadian:grenada kiribati:kiribati kittitian:saint kitts and nevis liechtensteiner:liechtenstein
  lucian:saint lucia marshallese:marshall islands micronesian:micronesia nauruan:nauru palauan:palau
  papuan:papua new guinea samoan:samoa sammarinese:san marino seychellois:seychelles
  sierra_leonean:sierra leone south_african:south africa south_sudanese:south sudan vincentian:saint vincent
  timorese:east timor tuvaluan:tuvalu emirati:united arab emirates vanuatuan:vanuatu scots:united kingdom
  northern_irish:united kingdom puerto_rican:puerto rico new_zealander:new zealand north_korean:north korea
  south_korean:south korea saudi_arabian:saudi arabia sri_lankan:sri lanka salvadorean:el salvador
  greenlandic:greenland faroese:faroe islands hongkonger:hong kong macanese:macau beninois:benin
  dominican:dominican republic belarussian:belarus kirghiz:kyrgyzstan tibetan:tibet catalan:spain
  basque:spain flemish:belgium walloon:belgium cornish:united kingdom austro-hungarian:austria-hungary`
    .trim()
    .split(/\s+(?=[a-z_-]+:)/)
    .map((pair) => {
      const [demonym, country] = pair.split(':') as [string, string];
      return [demonym.replace(/_/g, ' '), country.replace(/\s+/g, ' ')];
    }),
);
