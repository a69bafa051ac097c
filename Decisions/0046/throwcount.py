# Counts public throwing declarations, typed and untyped, under Sources/ (run from the repository root): issue 46's error-path count.
import re,os,sys,collections
res=collections.defaultdict(list)
for root,_,files in os.walk('Sources'):
    for f in files:
        if not f.endswith('.swift'): continue
        p=os.path.join(root,f); src=open(p).read(); lines=src.split('\n')
        for i,l in enumerate(lines):
            m=re.match(r'\s*(@[\w()]+\s+)*public\s+(static\s+|mutating\s+|convenience\s+|required\s+|override\s+)*(func|init[?!]?|subscript|var)\b',l)
            if not m: continue
            kind=m.group(3)
            text='\n'.join(lines[i:i+25])
            if kind=='var':
                mm=re.match(r'[^{]*\{\s*get\s+(async\s+)?(throws(\([^)]*\))?)?',text,re.S)
                if mm and mm.group(2):
                    res['typed' if mm.group(3) else 'untyped'].append(f"{p}:{i+1}")
                continue
            # find parameter list start: first '(' after name (skip generic <...>)
            k=text.index(kind)+len(kind)
            # skip name and generics
            depth=0
            while k<len(text) and text[k]!='(':
                if text[k]=='<' and text[k-1] not in ' ':
                    d=1;k+=1
                    while d and k<len(text):
                        d+= (text[k]=='<') - (text[k]=='>'); k+=1
                    continue
                k+=1
            d=0
            if k>=len(text): continue
            while k<len(text):
                c=text[k]
                if c=='(': d+=1
                elif c==')':
                    d-=1
                    if d==0: break
                k+=1
            after=text[k+1:k+80]
            mm=re.match(r'\s*(async\s+)?(rethrows|throws(\([^)]*\))?)?',after)
            if mm.group(2)=='rethrows': res['rethrows'].append(f"{p}:{i+1}")
            elif mm.group(2): res['typed' if mm.group(3) else 'untyped'].append(f"{p}:{i+1}")
for k,v in res.items():
    c=collections.Counter(x.split('/')[1] for x in v)
    print(k,len(v),dict(c))
if len(sys.argv)>1:
    for x in res[sys.argv[1]]: print(x)
