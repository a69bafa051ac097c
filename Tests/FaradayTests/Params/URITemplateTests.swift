import Faraday
import Testing

@Suite struct URITemplateTests {
    /// The variables of RFC 6570 section 3.2.
    static let variables: [String: URITemplate.Value] = [
        "count": ["one", "two", "three"], "dom": ["example", "com"], "dub": "me/too", "hello": "Hello World!",
        "half": "50%", "var": "value", "who": "fred", "base": "http://example.com/home/", "path": "/foo/bar",
        "list": ["red", "green", "blue"], "keys": .pairs([.init("semi", ";"), .init("dot", "."), .init("comma", ",")]),
        "v": "6", "x": "1024", "y": "768", "empty": "", "empty_keys": .pairs([]),
    ]

    /// Every example of RFC 6570 sections 3.2.1 to 3.2.9.
    static let examples: [(String, String)] = [
        ("{count}", "one,two,three"), ("{count*}", "one,two,three"), ("{/count}", "/one,two,three"),
        ("{/count*}", "/one/two/three"), ("{;count}", ";count=one,two,three"),
        ("{;count*}", ";count=one;count=two;count=three"),
        ("{?count}", "?count=one,two,three"), ("{?count*}", "?count=one&count=two&count=three"),
        ("{&count*}", "&count=one&count=two&count=three"),
        ("{var}", "value"), ("{hello}", "Hello%20World%21"), ("{half}", "50%25"), ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("{x,y}", "1024,768"), ("{x,hello,y}", "1024,Hello%20World%21,768"), ("?{x,empty}", "?1024,"),
        ("?{x,undef}", "?1024"),
        ("?{undef,y}", "?768"), ("{var:3}", "val"), ("{var:30}", "value"), ("{list}", "red,green,blue"),
        ("{list*}", "red,green,blue"), ("{keys}", "semi,%3B,dot,.,comma,%2C"), ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
        ("{+var}", "value"), ("{+hello}", "Hello%20World!"), ("{+half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"), ("{+base}index", "http://example.com/home/index"),
        ("O{+empty}X", "OX"), ("O{+undef}X", "OX"), ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("up{+path}{var}/here", "up/foo/barvalue/here"), ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"), ("{+path:6}/here", "/foo/b/here"), ("{+list}", "red,green,blue"),
        ("{+list*}", "red,green,blue"), ("{+keys}", "semi,;,dot,.,comma,,"), ("{+keys*}", "semi=;,dot=.,comma=,"),
        ("{#var}", "#value"), ("{#hello}", "#Hello%20World!"), ("{#half}", "#50%25"), ("foo{#empty}", "foo#"),
        ("foo{#undef}", "foo"), ("{#x,hello,y}", "#1024,Hello%20World!,768"), ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("{#path:6}/here", "#/foo/b/here"), ("{#list}", "#red,green,blue"), ("{#list*}", "#red,green,blue"),
        ("{#keys}", "#semi,;,dot,.,comma,,"), ("{#keys*}", "#semi=;,dot=.,comma=,"),
        ("{.who}", ".fred"), ("{.who,who}", ".fred.fred"), ("{.half,who}", ".50%25.fred"),
        ("www{.dom*}", "www.example.com"),
        ("X{.var}", "X.value"), ("X{.empty}", "X."), ("X{.undef}", "X"), ("X{.var:3}", "X.val"),
        ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"), ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
        ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
        ("X{.empty_keys}", "X"), ("X{.empty_keys*}", "X"),
        ("{/who}", "/fred"), ("{/who,who}", "/fred/fred"), ("{/half,who}", "/50%25/fred"),
        ("{/who,dub}", "/fred/me%2Ftoo"),
        ("{/var}", "/value"), ("{/var,empty}", "/value/"), ("{/var,undef}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{/var:1,var}", "/v/value"), ("{/list}", "/red,green,blue"), ("{/list*}", "/red/green/blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"), ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
        ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
        ("{;who}", ";who=fred"), ("{;half}", ";half=50%25"), ("{;empty}", ";empty"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{;v,bar,who}", ";v=6;who=fred"), ("{;x,y}", ";x=1024;y=768"), ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{;x,y,undef}", ";x=1024;y=768"), ("{;hello:5}", ";hello=Hello"), ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"), ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ("{?who}", "?who=fred"), ("{?half}", "?half=50%25"), ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("{?x,y,undef}", "?x=1024&y=768"), ("{?var:3}", "?var=val"), ("{?list}", "?list=red,green,blue"),
        ("{?list*}", "?list=red&list=green&list=blue"), ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
        ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
        ("{&who}", "&who=fred"), ("{&half}", "&half=50%25"), ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="), ("{&var:3}", "&var=val"), ("{&list}", "&list=red,green,blue"),
        ("{&list*}", "&list=red&list=green&list=blue"), ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
        ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
    ]

    @Test(arguments: examples)
    func theRFCExamplesExpand(_ template: String, _ expected: String) throws {
        #expect(try URITemplate(template).expand(Self.variables) == expected)
    }

    @Test func unicodeIsEncodedAsUTF8() throws {
        #expect(try URITemplate("{x}{+y}").expand(["x": "é", "y": "ü/%41"]) == "%C3%A9%C3%BC/%41")
    }

    @Test func variableNamesAreListed() throws {
        #expect(try URITemplate("/orders{/id}{?status,page*}").variableNames == ["id", "status", "page"])
    }

    @Test(arguments: [
        "{unclosed", "closed}", "{}", "{=x}", "{x:0}", "{x:10000}", "{x:abc}", "{a b}", "{.}", "{a..b}", "{%ZZ}",
    ])
    func malformedTemplatesAreRefused(_ template: String) {
        #expect {
            try URITemplate(template)
        } throws: { error in
            (error as? FaradayError)?.code == .invalidRequest
        }
    }
}
