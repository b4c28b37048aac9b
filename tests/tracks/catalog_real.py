"""The real songs of the resolution tests' catalog (``catalog_data.py``), as a music service names
them: qualifiers, diacritics, "The" bands, the same title by several artists.
"""

from __future__ import annotations

# artist | title | album | m:ss
REAL = """
Coldplay | Viva la Vida | Viva la Vida or Death and All His Friends | 4:02
Coldplay | Yellow | Parachutes | 4:29
Coldplay | The Scientist | A Rush of Blood to the Head | 5:09
Coldplay | Clocks | A Rush of Blood to the Head | 5:07
Coldplay | Fix You | X&Y | 4:55
Nightwish | Nemo | Once | 4:36
Nightwish | Ghost Love Score | Once | 10:02
Nightwish | Wish I Had an Angel | Once | 4:07
Nightwish | Storytime | Imaginaerum | 5:22
Nightwish | Amaranth | Dark Passion Play | 3:51
The Killers | Mr. Brightside | Hot Fuss | 3:42
The Killers | Somebody Told Me | Hot Fuss | 3:17
The Killers | When You Were Young | Sam's Town | 3:40
Queen | Bohemian Rhapsody - Remastered 2011 | A Night at the Opera | 5:55
Queen | Don't Stop Me Now - Remastered 2011 | Jazz | 3:29
Queen | Killer Queen - Remastered 2011 | Sheer Heart Attack | 2:59
Queen | Another One Bites the Dust - Remastered 2011 | The Game | 3:34
Queen | Under Pressure - Remastered 2011 | Hot Space | 4:08
Radiohead | Creep | Pablo Honey | 3:58
Radiohead | Karma Police | OK Computer | 4:21
Radiohead | No Surprises | OK Computer | 3:49
Radiohead | Paranoid Android | OK Computer | 6:23
TLC | Creep | CrazySexyCool | 4:28
Jeff Buckley | Hallelujah | Grace | 6:53
Leonard Cohen | Hallelujah | Various Positions | 4:39
Nine Inch Nails | Hurt | The Downward Spiral | 6:13
Johnny Cash | Hurt | American IV: The Man Comes Around | 3:38
Johnny Cash | Ring of Fire | Ring of Fire: The Best of Johnny Cash | 2:37
Beyoncé | Halo | I Am... Sasha Fierce | 4:21
Beyoncé | Crazy In Love (feat. Jay-Z) | Dangerously In Love | 3:56
Beyoncé | Single Ladies (Put a Ring on It) | I Am... Sasha Fierce | 3:13
Sigur Rós | Hoppípolla | Takk... | 4:28
Sigur Rós | Glósóli | Takk... | 6:15
Björk | Jóga | Homogenic | 5:05
Björk | Army of Me | Post | 3:54
Motörhead | Ace of Spades | Ace of Spades | 2:49
Mötley Crüe | Kickstart My Heart | Dr. Feelgood | 4:43
Mötley Crüe | Girls, Girls, Girls | Girls, Girls, Girls | 4:30
Röyksopp | Eple | Melody A.M. | 3:40
Röyksopp | Poor Leno | Melody A.M. | 3:56
Céline Dion | My Heart Will Go On - Love Theme from "Titanic" | Let's Talk About Love | 4:40
Michael Bublé | Feeling Good | It's Time | 3:57
Michael Bublé | Haven't Met You Yet | Crazy Love | 4:05
Rosalía | Malamente | El Mal Querer | 2:30
Rosalía | DESPECHÁ | Motomami + | 2:37
Måneskin | Beggin' | Chosen | 3:31
Måneskin | Zitti e buoni | Teatro d'ira - Vol. I | 3:14
Stromae | Alors on danse | Cheese | 3:26
Stromae | Papaoutai | Racine carrée | 3:52
Édith Piaf | La Vie en rose | La Vie en rose | 3:07
Édith Piaf | Non, je ne regrette rien | Non, je ne regrette rien | 2:22
Maná | Oye Mi Amor | ¿Dónde Jugarán los Niños? | 4:32
The Beatles | Here Comes The Sun - Remastered 2009 | Abbey Road | 3:05
The Beatles | Let It Be - Remastered 2009 | Let It Be | 4:03
The Beatles | Hey Jude - Remastered 2015 | 1 | 7:05
The Beatles | Yesterday - Remastered 2009 | Help! | 2:05
The Cure | Friday I'm in Love | Wish | 3:35
The Cure | Just Like Heaven | Kiss Me, Kiss Me, Kiss Me | 3:32
The Cure | Boys Don't Cry | Three Imaginary Boys | 2:37
The Smiths | There Is a Light That Never Goes Out - 2011 Remaster | The Queen Is Dead | 4:04
The Smiths | This Charming Man - 2011 Remaster | Hatful of Hollow | 2:41
The Strokes | Last Nite | Is This It | 3:13
The Strokes | Reptilia | Room on Fire | 3:41
The White Stripes | Seven Nation Army | Elephant | 3:51
The Rolling Stones | Paint It, Black | Aftermath | 3:22
The Rolling Stones | (I Can't Get No) Satisfaction - Mono Version | Out Of Our Heads | 3:43
The Weeknd | Blinding Lights | After Hours | 3:20
The Weeknd | Save Your Tears | After Hours | 3:35
The Weeknd | Starboy (feat. Daft Punk) | Starboy | 3:50
Daft Punk | Get Lucky (feat. Pharrell Williams & Nile Rodgers) | Random Access Memories | 6:09
Daft Punk | One More Time | Discovery | 5:20
Daft Punk | Harder, Better, Faster, Stronger | Discovery | 3:45
AC/DC | Back In Black | Back In Black | 4:15
AC/DC | Highway to Hell | Highway to Hell | 3:28
AC/DC | Thunderstruck | The Razors Edge | 4:52
Guns N' Roses | Sweet Child O' Mine | Appetite For Destruction | 5:56
Guns N' Roses | November Rain | Use Your Illusion I | 8:57
Guns N' Roses | Welcome To The Jungle | Appetite For Destruction | 4:31
Metallica | Enter Sandman | Metallica | 5:31
Metallica | Nothing Else Matters | Metallica | 6:28
Metallica | One | ...And Justice for All | 7:27
Metallica | Master of Puppets | Master of Puppets | 8:35
U2 | One | Achtung Baby | 4:36
U2 | With Or Without You | The Joshua Tree | 4:56
U2 | Beautiful Day | All That You Can't Leave Behind | 4:06
Blur | Song 2 | Blur | 2:02
Blur | Parklife | Parklife | 3:07
Oasis | Wonderwall | (What's The Story) Morning Glory? | 4:18
Oasis | Don't Look Back in Anger | (What's The Story) Morning Glory? | 4:48
Oasis | Champagne Supernova | (What's The Story) Morning Glory? | 7:31
Nirvana | Smells Like Teen Spirit | Nevermind | 5:01
Nirvana | Come As You Are | Nevermind | 3:38
Nirvana | Heart-Shaped Box | In Utero | 4:41
Pearl Jam | Black | Ten | 5:43
Pearl Jam | Alive | Ten | 5:41
Red Hot Chili Peppers | Under the Bridge | Blood Sugar Sex Magik | 4:24
Red Hot Chili Peppers | Californication | Californication | 5:29
Red Hot Chili Peppers | Scar Tissue | Californication | 3:35
Fleetwood Mac | Dreams | Rumours | 4:17
Fleetwood Mac | The Chain | Rumours | 4:30
Fleetwood Mac | Go Your Own Way | Rumours | 3:38
Eagles | Hotel California | Hotel California | 6:30
Led Zeppelin | Whole Lotta Love | Led Zeppelin II | 5:34
Led Zeppelin | Immigrant Song | Led Zeppelin III | 2:26
Led Zeppelin | Kashmir | Physical Graffiti | 8:37
Pink Floyd | Wish You Were Here | Wish You Were Here | 5:34
Pink Floyd | Comfortably Numb | The Wall | 6:22
Pink Floyd | Money | The Dark Side of the Moon | 6:22
David Bowie | Heroes - 2017 Remaster | Heroes | 6:11
David Bowie | Space Oddity - 2015 Remaster | David Bowie | 5:18
David Bowie | Starman - 2012 Remaster | The Rise and Fall of Ziggy Stardust | 4:17
Prince | Purple Rain | Purple Rain | 8:41
Prince | Kiss | Parade | 3:46
Michael Jackson | Billie Jean | Thriller | 4:54
Michael Jackson | Beat It | Thriller | 4:18
Michael Jackson | Smooth Criminal - 2012 Remaster | Bad 25th Anniversary | 4:17
Madonna | Like a Prayer | Like a Prayer | 5:39
Madonna | Hung Up | Confessions on a Dance Floor | 5:37
Whitney Houston | I Wanna Dance with Somebody (Who Loves Me) | Whitney | 4:51
Whitney Houston | I Will Always Love You | The Bodyguard | 4:31
Adele | Rolling in the Deep | 21 | 3:48
Adele | Someone Like You | 21 | 4:45
Adele | Hello | 25 | 4:55
Adele | Skyfall | Skyfall | 4:46
Lady Gaga | Bad Romance | The Fame Monster | 4:54
Lady Gaga | Poker Face | The Fame | 3:57
Lady Gaga | Shallow | A Star Is Born Soundtrack | 3:35
Taylor Swift | Shake It Off | 1989 | 3:39
Taylor Swift | Love Story | Fearless | 3:55
Taylor Swift | Blank Space | 1989 | 3:51
Taylor Swift | Anti-Hero | Midnights | 3:20
Ed Sheeran | Shape of You | ÷ | 3:53
Ed Sheeran | Perfect | ÷ | 4:23
Ed Sheeran | Thinking out Loud | x | 4:41
Billie Eilish | bad guy | WHEN WE ALL FALL ASLEEP, WHERE DO WE GO? | 3:14
Billie Eilish | Happier Than Ever | Happier Than Ever | 4:58
Billie Eilish | What Was I Made For? | Barbie The Album | 3:42
Arctic Monkeys | Do I Wanna Know? | AM | 4:32
Arctic Monkeys | R U Mine? | AM | 3:21
Arctic Monkeys | I Bet You Look Good On The Dancefloor | Whatever People Say I Am, That's What I'm Not | 2:53
Tame Impala | The Less I Know The Better | Currents | 3:36
Tame Impala | Let It Happen | Currents | 7:47
Gorillaz | Feel Good Inc. | Demon Days | 3:41
Gorillaz | Clint Eastwood | Gorillaz | 5:41
Linkin Park | In the End | Hybrid Theory | 3:36
Linkin Park | Numb | Meteora | 3:05
Green Day | Boulevard of Broken Dreams | American Idiot | 4:20
Green Day | Basket Case | Dookie | 3:01
Foo Fighters | Everlong | The Colour And The Shape | 4:10
Foo Fighters | The Pretender | Echoes, Silence, Patience & Grace | 4:29
Muse | Uprising | The Resistance | 5:04
Muse | Hysteria | Absolution | 3:47
Muse | Starlight | Black Holes and Revelations | 3:59
Kings of Leon | Use Somebody | Only By The Night | 3:50
Kings of Leon | Sex on Fire | Only By The Night | 3:23
Imagine Dragons | Radioactive | Night Visions | 3:06
Imagine Dragons | Believer | Evolve | 3:24
Florence + The Machine | Dog Days Are Over | Lungs | 4:12
Florence + The Machine | Shake It Out | Ceremonials | 4:37
Lorde | Royals | Pure Heroine | 3:10
Lorde | Green Light | Melodrama | 3:54
Hozier | Take Me to Church | Hozier | 4:01
Kate Bush | Running Up That Hill (A Deal With God) | Hounds of Love | 4:58
Kate Bush | Wuthering Heights | The Kick Inside | 4:29
a-ha | Take On Me | Hunting High and Low | 3:45
Depeche Mode | Enjoy the Silence | Violator | 6:12
Depeche Mode | Personal Jesus | Violator | 4:56
New Order | Blue Monday | Power, Corruption & Lies | 7:29
Joy Division | Love Will Tear Us Apart | Substance | 3:25
Tears for Fears | Everybody Wants To Rule The World | Songs From The Big Chair | 4:11
Toto | Africa | Toto IV | 4:55
Journey | Don't Stop Believin' | Escape | 4:10
Bon Jovi | Livin' On A Prayer | Slippery When Wet | 4:09
Survivor | Eye of the Tiger | Eye of the Tiger | 4:05
Europe | The Final Countdown | The Final Countdown | 5:10
Bonnie Tyler | Total Eclipse of the Heart | Faster Than the Speed of Night | 6:59
Cyndi Lauper | Girls Just Want to Have Fun | She's So Unusual | 3:58
R.E.M. | Losing My Religion | Out Of Time | 4:28
R.E.M. | Everybody Hurts | Automatic For The People | 5:20
The Police | Every Breath You Take | Synchronicity | 4:13
The Police | Roxanne | Outlandos d'Amour | 3:12
Dire Straits | Sultans of Swing | Dire Straits | 5:47
Bob Marley & The Wailers | Is This Love | Kaya | 3:52
Bob Marley & The Wailers | Three Little Birds | Exodus | 3:00
Amy Winehouse | Rehab | Back To Black | 3:34
Amy Winehouse | Back To Black | Back To Black | 4:01
Outkast | Hey Ya! | Speakerboxxx/The Love Below | 3:55
Eminem | Lose Yourself | 8 Mile | 5:26
Eminem | Without Me | The Eminem Show | 4:50
Kendrick Lamar | HUMBLE. | DAMN. | 2:57
Kendrick Lamar | Alright | To Pimp A Butterfly | 3:39
Drake | Hotline Bling | Views | 4:27
Drake | God's Plan | Scorpion | 3:18
Sabaton | Primo Victoria | Primo Victoria | 4:10
Sabaton | The Last Stand | The Last Stand | 3:55
Ghost | Square Hammer | Popestar | 4:01
Ghost | Mary On A Cross | Seven Inches of Satanic Panic | 4:04
Within Temptation | Ice Queen | Mother Earth | 5:20
Epica | Cry for the Moon | The Phantom Agony | 6:45
Rammstein | Du hast | Sehnsucht | 3:54
Rammstein | Sonne | Mutter | 4:32
Iron Maiden | The Trooper - 2015 Remaster | Piece of Mind | 4:12
Iron Maiden | Run to the Hills - 2015 Remaster | The Number of the Beast | 3:53
Black Sabbath | Paranoid | Paranoid | 2:48
Black Sabbath | Iron Man | Paranoid | 5:56
System Of A Down | Chop Suey! | Toxicity | 3:30
System Of A Down | Toxicity | Toxicity | 3:39
Evanescence | Bring Me To Life | Fallen | 3:57
Evanescence | My Immortal | Fallen | 4:33
Portishead | Glory Box | Dummy | 5:06
Massive Attack | Teardrop | Mezzanine | 5:29
Massive Attack | Angel | Mezzanine | 6:19
Moby | Porcelain | Play | 4:01
Bon Iver | Skinny Love | For Emma, Forever Ago | 3:58
Bon Iver | Holocene | Bon Iver, Bon Iver | 5:36
Fleet Foxes | White Winter Hymnal | Fleet Foxes | 2:27
Mumford & Sons | Little Lion Man | Sigh No More | 4:05
Mumford & Sons | The Cave | Sigh No More | 3:37
The Lumineers | Ho Hey | The Lumineers | 2:43
Vance Joy | Riptide | Dream Your Life Away | 3:24
Of Monsters and Men | Little Talks | My Head Is An Animal | 4:26
Simon & Garfunkel | The Sound of Silence | Wednesday Morning, 3 A.M. | 3:05
Simon & Garfunkel | Mrs. Robinson | Bookends | 4:04
Bruce Springsteen | Born to Run | Born To Run | 4:30
Bruce Springsteen | Dancing In the Dark | Born In The U.S.A. | 4:01
Elton John | Rocket Man (I Think It's Going To Be A Long, Long Time) | Honky Château | 4:41
Elton John | Tiny Dancer | Madman Across The Water | 6:17
ABBA | Dancing Queen | Arrival | 3:50
ABBA | Mamma Mia | ABBA | 3:33
"""
